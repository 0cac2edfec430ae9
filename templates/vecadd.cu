// vecadd: c[i] = a[i] + b[i] over n float32 elements, one template for every variant cutune tunes.
//
// Parameters (-DNAME=value; the defaults let `nvcc -c` build it):
//   BLOCK   threads per block.
//   VEC     1/2/4: float, float2 or float4 accesses (4-, 8- or 16-byte loads and stores).
//   EPT     vectors per thread per pass: a thread issues EPT independent loads of each input
//           before its first add (more bytes in flight per thread). The EPT vectors of a thread
//           are BLOCK vectors apart, so each load instruction of a warp stays coalesced.
//   GRID    0: one pass, grid = ceil(n / (BLOCK*VEC*EPT)), each thread handles one chunk;
//           > 0: a grid-stride loop over at most GRID blocks (fewer block launches, the same
//           blocks walk the whole array).
//   CS      1: streaming cache hints (__ldcs / __stcs: evict-first), 0: plain accesses.
//
// Launch (lua/vecadd_space.lua): block (BLOCK), grid (GRID ? min(GRID, chunks) : chunks) where
// chunks = ceil(n / (BLOCK*VEC*EPT)).
//
// Ragged n: the vector part covers floor(n / VEC) vectors with guards per vector; the last
// n % VEC elements are done by thread 0 of block 0 with scalar accesses. Buffers are assumed
// 16-byte aligned (cudaMalloc/cuMemAlloc give 256). Indices are 64-bit: n may exceed 2^31.
//
// With -DCUTUNE_REFERENCE=1 the file provides only vecadd_ref: one element per thread,
// block 256, grid ceil(n/256) (n < 2^31 * 256).

#ifndef CUTUNE_REFERENCE

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef EPT
#define EPT 4
#endif
#ifndef GRID
#define GRID 0
#endif
#ifndef CS
#define CS 0
#endif

#if VEC == 4
typedef float4 va_vec;
#elif VEC == 2
typedef float2 va_vec;
#elif VEC == 1
typedef float va_vec;
#else
#error "VEC must be 1, 2 or 4"
#endif

__device__ __forceinline__ float va_add(float x, float y) { return x + y; }
__device__ __forceinline__ float2 va_add(float2 x, float2 y) { return make_float2(x.x + y.x, x.y + y.y); }
__device__ __forceinline__ float4 va_add(float4 x, float4 y) {
  return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}
template <typename T>
__device__ __forceinline__ T va_load(const T *p) {
#if CS
  return __ldcs(p);
#else
  return *p;
#endif
}
template <typename T>
__device__ __forceinline__ void va_store(T *p, T v) {
#if CS
  __stcs(p, v);
#else
  *p = v;
#endif
}

extern "C" __global__ void __launch_bounds__(BLOCK) vecadd(float *c, const float *a, const float *b, long long n) {
  const long long nv = n / VEC;  // whole vectors
  const va_vec *av = reinterpret_cast<const va_vec *>(a);
  const va_vec *bv = reinterpret_cast<const va_vec *>(b);
  va_vec *cv = reinterpret_cast<va_vec *>(c);
  const long long chunk = (long long)BLOCK * EPT;  // vectors per block and pass
#if GRID
  for (long long base = (long long)blockIdx.x * chunk; base < nv; base += (long long)gridDim.x * chunk) {
#else
  {
    const long long base = (long long)blockIdx.x * chunk;
#endif
    const long long i0 = base + threadIdx.x;
    va_vec x[EPT], y[EPT];
    if (base + chunk <= nv) {  // a whole chunk: no guards (uniform per block)
#pragma unroll
      for (int e = 0; e < EPT; e++) {
        x[e] = va_load(av + i0 + (long long)e * BLOCK);
        y[e] = va_load(bv + i0 + (long long)e * BLOCK);
      }
#pragma unroll
      for (int e = 0; e < EPT; e++) va_store(cv + i0 + (long long)e * BLOCK, va_add(x[e], y[e]));
    } else {
#pragma unroll
      for (int e = 0; e < EPT; e++) {
        const long long i = i0 + (long long)e * BLOCK;
        if (i < nv) va_store(cv + i, va_add(va_load(av + i), va_load(bv + i)));
      }
    }
  }
  if (VEC > 1 && blockIdx.x == 0 && threadIdx.x == 0)
    for (long long i = nv * VEC; i < n; i++) c[i] = a[i] + b[i];
}

#else  // CUTUNE_REFERENCE

// The reference: one element per thread. Block 256, grid ceil(n/256).
extern "C" __global__ void vecadd_ref(float *c, const float *a, const float *b, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

#endif  // CUTUNE_REFERENCE
