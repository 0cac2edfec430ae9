// scan.cu: inclusive prefix sum of n ints, out[i] = in[0] + ... + in[i], as three launches that
// examples/kernels/scan.lua times as one configuration (scan-then-propagate):
//
//   1. scan_tiles<kBlock, kItems>: each block scans its tile of kBlock * kItems ints into out and
//      writes the tile's total to totals[blockIdx.x]. The tile is loaded striped (coalesced) into
//      shared memory, each thread scans kItems consecutive elements in registers, the threads'
//      totals are scanned across the block (warp shuffles, then one warp over the warps' totals),
//      and the tile is stored striped again. Shared indices are padded by one word per 32 so that
//      neither the striped nor the per-thread accesses conflict on banks.
//   2. scan_block_totals<kBlock>: one block scans totals[0 .. nblocks) in place, kBlock at a time
//      with a running carry (inclusive: totals[b] is the sum of tiles 0..b).
//   3. add_block_offsets<kBlock, kItems>: block b > 0 adds totals[b - 1] to its tile of out.
//
// scan_ref (compiled with -DCUTUNE_REFERENCE=1): one block of 1024 threads, each summing then
// scanning its own contiguous segment sequentially, the 1024 segment sums scanned by thread 0.

#ifndef CUTUNE_REFERENCE

constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ int padded(int i) { return i + i / 32; }

// Exclusive prefix of v over the block's threads (in threadIdx.x order); *total gets the block's
// sum. Every thread of the block must call it.
template <int kBlock>
__device__ __forceinline__ int block_exclusive_scan(int v, int *total) {
  constexpr int kWarps = kBlock / 32;
  __shared__ int warp_sums[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int x = v;
#pragma unroll
  for (int off = 1; off < 32; off *= 2) {
    const int y = __shfl_up_sync(kFull, x, off);
    if (lane >= off) x += y;
  }
  if (lane == 31) warp_sums[warp] = x;
  __syncthreads();
  if (warp == 0) {
    int s = lane < kWarps ? warp_sums[lane] : 0;
#pragma unroll
    for (int off = 1; off < 32; off *= 2) {
      const int y = __shfl_up_sync(kFull, s, off);
      if (lane >= off) s += y;
    }
    if (lane < kWarps) warp_sums[lane] = s;
  }
  __syncthreads();
  const int prefix = (warp > 0 ? warp_sums[warp - 1] : 0) + x - v;
  *total = warp_sums[kWarps - 1];
  __syncthreads();  // warp_sums is reused by the next call
  return prefix;
}

template <int kBlock, int kItems>
__global__ void __launch_bounds__(kBlock)
scan_tiles(int *__restrict__ out, const int *__restrict__ in, int *__restrict__ totals, long long n) {
  static_assert(kBlock % 32 == 0 && kBlock <= 1024, "kBlock: a multiple of 32, at most 1024");
  constexpr int kTile = kBlock * kItems;
  __shared__ int tile[kTile + kTile / 32];
  const long long base = static_cast<long long>(blockIdx.x) * kTile;

#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = k * kBlock + threadIdx.x;
    tile[padded(i)] = base + i < n ? in[base + i] : 0;
  }
  __syncthreads();

  int v[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) v[k] = tile[padded(threadIdx.x * kItems + k)];
#pragma unroll
  for (int k = 1; k < kItems; ++k) v[k] += v[k - 1];
  int block_total;
  const int prefix = block_exclusive_scan<kBlock>(v[kItems - 1], &block_total);
#pragma unroll
  for (int k = 0; k < kItems; ++k) tile[padded(threadIdx.x * kItems + k)] = v[k] + prefix;
  __syncthreads();

#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = k * kBlock + threadIdx.x;
    if (base + i < n) out[base + i] = tile[padded(i)];
  }
  if (threadIdx.x == 0) totals[blockIdx.x] = block_total;
}

template <int kBlock>
__global__ void __launch_bounds__(kBlock) scan_block_totals(int *totals, int nblocks) {
  int carry = 0;
  for (int b0 = 0; b0 < nblocks; b0 += kBlock) {
    const int b = b0 + threadIdx.x;
    const int v = b < nblocks ? totals[b] : 0;
    int chunk;
    const int prefix = block_exclusive_scan<kBlock>(v, &chunk);
    if (b < nblocks) totals[b] = carry + prefix + v;
    carry += chunk;
  }
}

template <int kBlock, int kItems>
__global__ void __launch_bounds__(kBlock)
add_block_offsets(int *__restrict__ out, const int *__restrict__ totals, long long n) {
  if (blockIdx.x == 0) return;
  constexpr int kTile = kBlock * kItems;
  const long long base = static_cast<long long>(blockIdx.x) * kTile;
  const int offset = totals[blockIdx.x - 1];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const long long i = base + k * kBlock + threadIdx.x;
    if (i < n) out[i] += offset;
  }
}

#else  // CUTUNE_REFERENCE

__global__ void scan_ref(int *out, const int *in, long long n) {
  __shared__ int sums[1024];
  const int t = threadIdx.x, T = blockDim.x;  // launched as one block of 1024
  const long long seg = (n + T - 1) / T;
  const long long lo = t * seg < n ? t * seg : n, hi = lo + seg < n ? lo + seg : n;
  int s = 0;
  for (long long i = lo; i < hi; ++i) s += in[i];
  sums[t] = s;
  __syncthreads();
  if (t == 0) {
    int run = 0;
    for (int k = 0; k < T; ++k) {
      const int x = sums[k];
      sums[k] = run;  // exclusive
      run += x;
    }
  }
  __syncthreads();
  int run = sums[t];
  for (long long i = lo; i < hi; ++i) {
    run += in[i];
    out[i] = run;
  }
}

#endif
