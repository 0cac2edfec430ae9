// softmax.cu: row-wise softmax of a row-major float matrix, out[r][c] = exp(in[r][c] - max_r) / sum_r,
// tuned by examples/kernels/softmax.lua.
//
// softmax_rows<BLOCK, VEC>: one thread block per row at a time (a block walks rows_per_block
// consecutive rows). Pass 1 reads the row once with an online max/sum (each thread keeps a running
// max and a sum rescaled whenever the max grows), then one block-level reduction of the (max, sum)
// pairs through warp shuffles and a shared array of per-warp partials. Pass 2 reads the row again
// (from L2/L1 for rows that fit) and writes exp(x - max) / sum.
//
// VEC (1, 2, 4): floats per load/store (float, float2, float4). A row starts at r * cols floats, so
// for cols not a multiple of VEC its start is not VEC-aligned: each row is split into a scalar head
// (up to VEC-1 elements, until the first VEC-aligned address), a vector body and a scalar tail.
// Buffers are assumed at least 16-byte aligned (cudaMalloc/cuMemAlloc give 256).
//
// softmax_rows_ref (compiled with -DCUTUNE_REFERENCE=1): one thread per row, sequential, the sum
// and the exponentials in double.

#include <cuda/std/limits>

constexpr float kNegInf = -cuda::std::numeric_limits<float>::infinity();

#ifndef CUTUNE_REFERENCE

template <int VEC> struct VecOf;
template <> struct VecOf<1> { using type = float; };
template <> struct VecOf<2> { using type = float2; };
template <> struct VecOf<4> { using type = float4; };

__device__ __forceinline__ float lane_of(float v, int) { return v; }
__device__ __forceinline__ float lane_of(float2 v, int k) { return k == 0 ? v.x : v.y; }
__device__ __forceinline__ float lane_of(float4 v, int k) {
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}
__device__ __forceinline__ void set_lane(float &v, int, float x) { v = x; }
__device__ __forceinline__ void set_lane(float2 &v, int k, float x) { (k == 0 ? v.x : v.y) = x; }
__device__ __forceinline__ void set_lane(float4 &v, int k, float x) {
  (k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w) = x;
}

// Running (max, sum of exp(x - max)); an empty state is (-inf, 0).
struct MaxSum {
  float m, s;
  __device__ __forceinline__ void add(float x) {
    if (x > m) {
      s = s * expf(m - x) + 1.0f;  // expf(-inf) = 0 for the first element
      m = x;
    } else {
      s += expf(x - m);
    }
  }
  __device__ __forceinline__ void merge(float om, float os) {
    const float nm = fmaxf(m, om);
    if (nm == kNegInf) return;  // both empty
    s = s * expf(m - nm) + os * expf(om - nm);
    m = nm;
  }
};

// Elements before the first VEC-aligned address of p (0..VEC-1), at most cols.
template <int VEC>
__device__ __forceinline__ int head_count(const float *p, int cols) {
  const int mis = static_cast<int>((reinterpret_cast<unsigned long long>(p) / sizeof(float)) % VEC);
  return min(cols, mis ? VEC - mis : 0);
}

template <int BLOCK>
__device__ __forceinline__ MaxSum block_reduce(MaxSum v) {
  constexpr int WARPS = BLOCK / 32;
  __shared__ float sm[WARPS], ss[WARPS];
  __shared__ float bm, bs;
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    const float om = __shfl_xor_sync(0xffffffffu, v.m, off);
    const float os = __shfl_xor_sync(0xffffffffu, v.s, off);
    v.merge(om, os);
  }
  if constexpr (WARPS > 1) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) { sm[warp] = v.m; ss[warp] = v.s; }
    __syncthreads();
    if (warp == 0) {
      MaxSum w{lane < WARPS ? sm[lane] : kNegInf, lane < WARPS ? ss[lane] : 0.0f};
#pragma unroll
      for (int off = 16; off > 0; off /= 2) {
        const float om = __shfl_xor_sync(0xffffffffu, w.m, off);
        const float os = __shfl_xor_sync(0xffffffffu, w.s, off);
        w.merge(om, os);
      }
      if (lane == 0) { bm = w.m; bs = w.s; }
    }
    __syncthreads();
    v = MaxSum{bm, bs};
  }
  return v;
}

template <int BLOCK, int VEC>
__global__ void __launch_bounds__(BLOCK)
softmax_rows(float *__restrict__ out, const float *__restrict__ in, int rows, int cols, int rows_per_block) {
  static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "BLOCK must be a multiple of 32, at most 1024");
  using V = typename VecOf<VEC>::type;
  const int r0 = blockIdx.x * rows_per_block;
  const int r1 = min(rows, r0 + rows_per_block);
  for (int r = r0; r < r1; ++r) {
    const float *x = in + static_cast<long long>(r) * cols;
    float *y = out + static_cast<long long>(r) * cols;
    const int head = head_count<VEC>(x, cols);
    const int nvec = (cols - head) / VEC;
    const int tail0 = head + nvec * VEC;
    const V *xv = reinterpret_cast<const V *>(x + head);
    V *yv = reinterpret_cast<V *>(y + head);

    MaxSum acc{kNegInf, 0.0f};
    for (int i = threadIdx.x; i < head; i += BLOCK) acc.add(x[i]);
    for (int i = threadIdx.x; i < nvec; i += BLOCK) {
      const V v = xv[i];
#pragma unroll
      for (int k = 0; k < VEC; ++k) acc.add(lane_of(v, k));
    }
    for (int i = tail0 + threadIdx.x; i < cols; i += BLOCK) acc.add(x[i]);

    const MaxSum row = block_reduce<BLOCK>(acc);
    const float inv = 1.0f / row.s;

    for (int i = threadIdx.x; i < head; i += BLOCK) y[i] = expf(x[i] - row.m) * inv;
    for (int i = threadIdx.x; i < nvec; i += BLOCK) {
      V v = xv[i];
#pragma unroll
      for (int k = 0; k < VEC; ++k) set_lane(v, k, expf(lane_of(v, k) - row.m) * inv);
      yv[i] = v;
    }
    for (int i = tail0 + threadIdx.x; i < cols; i += BLOCK) y[i] = expf(x[i] - row.m) * inv;
    __syncthreads();  // the reduction's shared slots are reused by the next row
  }
}

#else  // CUTUNE_REFERENCE

__global__ void softmax_rows_ref(float *out, const float *in, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *x = in + static_cast<long long>(r) * cols;
  float *y = out + static_cast<long long>(r) * cols;
  float m = kNegInf;
  for (int c = 0; c < cols; ++c) m = fmaxf(m, x[c]);
  double s = 0.0;
  for (int c = 0; c < cols; ++c) s += exp(static_cast<double>(x[c]) - m);
  for (int c = 0; c < cols; ++c) y[c] = static_cast<float>(exp(static_cast<double>(x[c]) - m) / s);
}

#endif
