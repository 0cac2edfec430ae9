// bench_common.cuh: what the side-by-side benchmarks (bench/*_bench.cu) share, so that every row
// of every table is timed and checked the same way:
//
//   CK(call), CKB(call)   exit(1) naming the file, line and call on a CUDA runtime / cuBLAS error
//                         (CKB is expanded only where a benchmark includes cublas_v2.h and uses it)
//   bench_time(op, reps, &median_ms, &min_ms)
//                         warm-up runs of op() for at least BENCH_WARM_MS (default 50) ms of wall
//                         time, 3 at least; then `reps` runs queued back to back, each between
//                         its own pair of CUDA events (the GPU never waits for the host); the median
//                         (mean of the middle two for an even count) and the minimum, in ms
//   bench_copy_float4     one float4 per thread (TARGETS.md's "float4 copy kernel"), block 256
//   bench_fill_uniform    a seeded pseudo-random fill in [lo, hi), on the GPU
//   bench_cdiv            ceil(a / b) as a grid dimension
//   bench_candidate_option  the options of the candidate benchmarks (templates_*.cu): --only,
//                         --reps, --sweep, --seed
//
// Header-only, for nvcc; include it after the CUDA (and cuBLAS) headers.
#ifndef CUTUNE_BENCH_COMMON_CUH
#define CUTUNE_BENCH_COMMON_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));       \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)
#define CKB(call)                                                                                  \
  do {                                                                                             \
    cublasStatus_t s_ = (call);                                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                             \
      fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, (int)s_);        \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

// Launches per pair of events (a bench's --queue N): 1, each launch between its own pair; N > 1,
// N launches back to back between a pair and their time / N a sample (the queue stays full, so
// host time between launches is out of the figure, as in the tuner's batches).
static int bench_queue = 1;

// The warm-up of every measurement, by time: an idle H200 sits at 345 MHz and its clock takes
// milliseconds to come up, so 3 launches of a 40 us kernel right after a shape's setup (allocation,
// fill, the host-side check) timed the first of two operations at a lower clock than the second:
// the shipped transpose at 4096^2 measured 40.6 us before cudaMemcpy's 34.9, and 36.9 against
// 35.3 after 300 ms of copies (2026-12-03, docs/PERFORMANCE.md). BENCH_WARM_MS overrides it.
static double bench_warm_ms() {
  const char *e = getenv("BENCH_WARM_MS");
  double v = e && *e ? atof(e) : 50.0;
  return v >= 0 ? v : 50.0;
}

template <class F>
static void bench_time(F op, int reps, double *median_ms, double *min_ms) {
  const double want = bench_warm_ms();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; i++) op();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  while (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() < want) {
    for (int i = 0; i < 8; i++) op();  // a host synchronisation every 8
    CK(cudaDeviceSynchronize());
  }
  const int q = bench_queue > 1 ? bench_queue : 1;
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto &e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(ev[2 * i]));
    for (int k = 0; k < q; k++) op();
    CK(cudaEventRecord(ev[2 * i + 1]));
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<double> t(reps);
  for (int i = 0; i < reps; i++) {
    float ms;
    CK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
    t[i] = ms / q;
  }
  for (auto &e : ev) CK(cudaEventDestroy(e));
  std::sort(t.begin(), t.end());
  if (median_ms) *median_ms = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  if (min_ms) *min_ms = t[0];
}

// The median alone.
template <class F>
static double bench_median_ms(F op, int reps) {
  double med;
  bench_time(op, reps, &med, nullptr);
  return med;
}

__global__ void bench_copy_float4(float4 *dst, const float4 *src, long long n4) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) dst[i] = src[i];
}

__global__ void bench_fill_uniform(float *p, long long n, unsigned seed, float lo, float hi) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned x = (unsigned)i * 2654435761u ^ seed;
    x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
    p[i] = lo + (x >> 8) * (1.0f / 16777216.0f) * (hi - lo);
  }
}

static unsigned bench_cdiv(long long a, long long b) { return (unsigned)((a + b - 1) / b); }

// --only NAME,... (kept as ",NAME,...,"), --reps N, --sweep N, --seed S: 1 when argv[*i] is one
// of them (*i moves past its value), else 0.
static int bench_candidate_option(int argc, char **argv, int *i, std::string *only, int *reps, int *sweep,
                                  unsigned *seed) {
  if (*i + 1 >= argc) return 0;
  const char *a = argv[*i];
  if (!strcmp(a, "--only")) *only = std::string(",") + argv[++*i] + ",";
  else if (!strcmp(a, "--reps")) *reps = atoi(argv[++*i]);
  else if (!strcmp(a, "--sweep")) *sweep = atoi(argv[++*i]);
  else if (!strcmp(a, "--seed")) *seed = (unsigned)atoi(argv[++*i]);
  else return 0;
  return 1;
}

#endif
