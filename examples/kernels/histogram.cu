// histogram.cu: 256-bin histogram of a byte array, tuned by examples/kernels/histogram.lua.
//
// histogram256<kBlock, kItems, kSubHist>: each block counts kBlock * kItems 32-bit words (4 bytes
// each, coalesced: word k of a thread is kBlock words after word k-1) into kSubHist private copies
// of the 256 bins in shared memory, then adds its copies' totals to the global bins with one
// atomicAdd per non-zero bin. Copy c of bin b lives at sh[b * kSubHist + c] and thread t uses copy
// t % kSubHist, so lanes of a warp that hit the same bin hit different words (with kSubHist = 32,
// lane l always hits bank l: no bank conflicts and no same-address serialisation within a warp).
// The n % 4 bytes after the last whole word are counted by block 0.
//
// The global bins must be zero before the launch (the space zeroes them: fill = "zero").
//
// histogram256_ref (compiled with -DCUTUNE_REFERENCE=1): one thread per byte, a global atomicAdd each.

#ifndef CUTUNE_REFERENCE

template <int kBlock, int kItems, int kSubHist>
__global__ void __launch_bounds__(kBlock)
histogram256(unsigned int *__restrict__ hist, const unsigned char *__restrict__ data, long long n) {
  static_assert(kSubHist >= 1 && kSubHist <= 32, "1 to 32 sub-histograms");
  __shared__ unsigned int sh[256 * kSubHist];
  for (int i = threadIdx.x; i < 256 * kSubHist; i += kBlock) sh[i] = 0;
  __syncthreads();

  const int copy = threadIdx.x % kSubHist;
  const long long nwords = n / 4;
  const unsigned int *words = reinterpret_cast<const unsigned int *>(data);  // 256-byte aligned buffer
  const long long base = static_cast<long long>(blockIdx.x) * kBlock * kItems + threadIdx.x;

  unsigned int w[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {  // every load issued before the first atomic
    const long long i = base + static_cast<long long>(k) * kBlock;
    w[k] = i < nwords ? __ldg(words + i) : 0u;
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (base + static_cast<long long>(k) * kBlock < nwords) {
#pragma unroll
      for (int b = 0; b < 4; ++b) atomicAdd(&sh[((w[k] >> (8 * b)) & 0xffu) * kSubHist + copy], 1u);
    }
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4) atomicAdd(&sh[data[nwords * 4 + threadIdx.x] * kSubHist + copy], 1u);
  __syncthreads();

  for (int bin = threadIdx.x; bin < 256; bin += kBlock) {
    unsigned int total = 0;
#pragma unroll
    for (int c = 0; c < kSubHist; ++c) total += sh[bin * kSubHist + c];
    if (total) atomicAdd(&hist[bin], total);
  }
}

#else  // CUTUNE_REFERENCE

__global__ void histogram256_ref(unsigned int *hist, const unsigned char *data, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[data[i]], 1u);
}

#endif
