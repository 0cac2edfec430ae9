// example_common.h: what the example programs share: their CUDA error check (CK), the device
// line (example_device), inputs filled on the GPU (fill_uniform), the timing of a tuned
// launcher the way cutune measures a configuration (time_launch), their --time / --within
// options (example_option), the time line they print (example_report) and, for the two GEMM
// examples, their sizes, entry description, guard and check (gemm_*). Header-only, for nvcc.
//
// time_launch(launch, bytes): the median of the samples, each a batch of back-to-back launches
// of >= 0.5 ms when the working set (`bytes`) does not fit in twice the L2, else one launch per
// sample after a flush of the L2 (a read of 2 x L2: flush_read_kernel). ~2 ms of warm-up first. Sampling stops as
// cutune's does by default (docs/MEASURE.md): at least 10 samples, then once the relative standard
// error of their mean is below 0.5 %, at most 200. (With a fixed 200 batches, ~100 ms of a
// 650 TFLOP/s BF16 GEMM back to back, the H200 gave 0.2314 ms at 4096^3 where cutune's record
// says 0.2096 and bench/hgemm.sh's single launches 0.2091; on 2026-12-03 nvidia-smi showed the
// SM clock at 1605-1875 MHz during those 200 batches, 1980 MHz during this rule's: 0.982.)
#ifndef CUTUNE_EXAMPLE_COMMON_H
#define CUTUNE_EXAMPLE_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

// The flush of L2 before a flushed sample: a read of the 2 x L2 scratch buffer (zeroed once), which
// leaves L2 full of clean lines, as cutune's GPU worker flushes (docs/MEASURE.md). A memset of it
// left L2 full of dirty lines, whose write-back the timed launch then paid: a transpose of
// 1000 x 3002 timed 1.20 times cutune's figure on an H100 (2026-12-08).
static __global__ void flush_read_kernel(const unsigned *p, size_t n, unsigned *sink) {
  unsigned x = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) x ^= p[i];
  if (x == 0x9E3779B9u) *sink = x;  // never (the buffer is zeros): keeps the reads
}

template <typename Launch>
static double time_launch(Launch launch, size_t bytes) {
  int dev, l2 = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  bool flush = bytes < 2 * (size_t)l2;
  void *scratch = NULL;
  if (flush) {
    CK(cudaMalloc(&scratch, 2 * (size_t)l2 + 4));
    CK(cudaMemset(scratch, 0, 2 * (size_t)l2 + 4));
  }
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  float ms = 0;
  CK(cudaEventRecord(a));
  CK(launch());
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  CK(cudaEventElapsedTime(&ms, a, b));
  double t1 = ms > 1e-4 ? ms : 1e-4;
  for (int k = 0; k < (int)(2.0 / t1) + 2; k++) CK(launch());  // ~2 ms warm-up
  int K = flush ? 1 : (int)(0.5 / t1 + 1);
  std::vector<double> s;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < 200; i++) {
    if (flush) {
      flush_read_kernel<<<16 * sms, 256>>>((const unsigned *)scratch, 2 * (size_t)l2 / 4, (unsigned *)scratch + 2 * (size_t)l2 / 4);
      CK(cudaGetLastError());
    }
    else CK(launch());  // keeps the GPU busy while the batch is queued
    CK(cudaEventRecord(a));
    for (int k = 0; k < K; k++) CK(launch());
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    s.push_back(ms / K);
    sum += ms / K, sum2 += (double)(ms / K) * (ms / K);
    const double n = (double)s.size(), mean = sum / n, var = n > 1 ? (sum2 - n * mean * mean) / (n - 1) : 0;
    if (n >= 10 && mean > 0 && sqrt(var > 0 ? var : 0) / sqrt(n) < 0.005 * mean) break;  // cutune's --rse
  }
  std::sort(s.begin(), s.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  if (scratch) CK(cudaFree(scratch));
  const size_t h = s.size() / 2;
  return s.size() % 2 ? s[h] : 0.5 * (s[h - 1] + s[h]);
}

// A pseudo-random float in [-1, 1) from i and seed (the same on every run and GPU).
static __device__ float example_uniform(long long i, unsigned seed) {
  unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ull + seed;
  h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
  return (float)((h >> 40) & 0xFFFFFF) * (2.0f / 16777216.0f) - 1.0f;
}
// x[i] = example_uniform(i, seed)
static __global__ void fill_uniform_kernel(float *x, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = example_uniform(i, seed);
}
static void fill_uniform(float *x, long long n, unsigned seed) {
  if (n > 0) fill_uniform_kernel<<<1024, 256>>>(x, n, seed);
  CK(cudaGetLastError());
}

// --time (time each size) and --within X (time it, and fail a size slower than its reference by
// more than X): 1 when argv[*i] is one of them (*i moves past its value), else 0.
static int example_option(int argc, char **argv, int *i, bool *timing, double *within) {
  if (!strcmp(argv[*i], "--time")) return *timing = true, 1;
  if (!strcmp(argv[*i], "--within") && *i + 1 < argc) return *within = atof(argv[++*i]), *timing = true, 1;
  return 0;
}

// "size LABEL: T ms (RATE)", then ", reference R ms: ratio X" where ref > 0 (and "SLOWER than
// ... allows" past --within). 1 when too slow.
static int example_report(const char *label, double ms, const char *rate, double ref, double within) {
  int slow = 0;
  printf("size %s: %.4f ms (%s)", label, ms, rate);
  if (ref > 0) {
    printf(", reference %.4f ms: ratio %.4f", ref, ms / ref);
    if (within >= 0 && ms > ref * (1 + within)) printf("  SLOWER than %.1f %% allows", 100 * within), slow = 1;
  }
  printf("\n");
  return slow;
}

// 77 (skipped) where there is no CUDA device; else prints the device and returns 0.
static int example_device(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    printf("no CUDA device: nothing to run\n");
    return 77;
  }
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("device: %s (sm_%d%d)\n", p.name, p.major, p.minor);
  return 0;
}

// ---- What the GEMM examples share (sgemm_example, hgemm_example): the sizes on the command
// line, the entry's description, the guard after C and the check of C against a float64
// reference R. ----

struct gemm_size {
  int M, N, K;
  double ref_ms;
};

static const int GEMM_GUARD = 64;  // floats after C that the kernel must not write
static const float GEMM_SENTINEL = -12345.5f;

static __global__ void gemm_set_guard(float *g) {
  if (threadIdx.x < GEMM_GUARD) g[threadIdx.x] = GEMM_SENTINEL;
}

// bad[0]: elements outside the tolerance (or not finite), bad[1]: guard floats overwritten;
// err[0]: the largest |c - ref| / max(1, |ref|) (as the bits of a non-negative float).
static __global__ void gemm_compare(const float *C, const double *R, long long count, double tol,
                                    unsigned long long *bad, unsigned *err) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count + GEMM_GUARD;
       i += (long long)gridDim.x * blockDim.x) {
    if (i >= count) {
      if (C[i] != GEMM_SENTINEL) atomicAdd(&bad[1], 1ull);
      continue;
    }
    const double r = R[i], d = fabs((double)C[i] - r) / fmax(1.0, fabs(r));
    if (!(d <= tol)) atomicAdd(&bad[0], 1ull);
    if (d == d) atomicMax(err, __float_as_uint((float)d));
  }
}

// C (with its guard) against R, element by element within tol * max(1, |ref|): the lines that
// say so; 1 when wrong.
static int gemm_verify(const gemm_size &z, float alpha, float beta, const float *C, const double *R, double tol) {
  const long long count = (long long)z.M * z.N;
  unsigned long long *bad;
  unsigned *err;
  CK(cudaMallocManaged(&bad, 2 * sizeof *bad));
  CK(cudaMallocManaged(&err, sizeof *err));
  bad[0] = bad[1] = 0, *err = 0;
  gemm_compare<<<1024, 256>>>(C, R, count, tol, bad, err);
  CK(cudaDeviceSynchronize());
  float e;
  memcpy(&e, err, sizeof e);
  int fail = bad[0] || bad[1];
  printf("size %dx%dx%d alpha=%g beta=%g: output %s (largest error %.3g, tolerance %.3g)\n", z.M, z.N, z.K, alpha,
         beta, fail ? "WRONG" : "within the tolerance of the reference", e, tol);
  if (bad[0]) printf("size %dx%dx%d: %llu of %lld elements outside the tolerance\n", z.M, z.N, z.K, bad[0], count);
  if (bad[1]) printf("size %dx%dx%d: %llu of the %d floats after C overwritten\n", z.M, z.N, z.K, bad[1], GEMM_GUARD);
  CK(cudaFree(bad));
  CK(cudaFree(err));
  return fail;
}

// The command line: --time, --within X and sizes MxNxK[=REF_MS] into *sizes (defaults where none
// is given). 0, or 2 after the usage line (prog names the program).
static int gemm_args(int argc, char **argv, const char *prog, const std::vector<gemm_size> &defaults, bool *timing,
                     double *within, std::vector<gemm_size> *sizes) {
  for (int i = 1; i < argc; i++) {
    if (example_option(argc, argv, &i, timing, within)) continue;
    gemm_size z = {0, 0, 0, -1};
    if (sscanf(argv[i], "%dx%dx%d=%lf", &z.M, &z.N, &z.K, &z.ref_ms) < 3 || z.M <= 0 || z.N <= 0 || z.K < 0) {
      fprintf(stderr, "usage: %s [--time] [--within X] [MxNxK[=REF_MS]]...\n", prog);
      return 2;
    }
    sizes->push_back(z);
  }
  if (sizes->empty()) *sizes = defaults;
  return 0;
}

// The entry the launcher picks for z and why (describe and why: the launcher's cutune_*_describe
// and its why function); *rec_ms and mp: the entry's measured time and problem. The reference
// time of z: the one given, else the entry's where it was measured at z, else -1.
template <typename Describe, typename Why>
static double gemm_describe(const gemm_size &z, Describe describe, Why why_fn) {
  int config;
  char params[256];
  double rec_ms;
  long long mp[3];
  const char *src;
  CK(describe(z.M, z.N, z.K, &config, params, sizeof params, &rec_ms, mp, &src));
  for (char *c = params; *c; c++)
    if (*c == ' ') *c = ',';
  printf("size %dx%dx%d: config %d %s (entry measured at %lldx%lldx%lld: %s)\n", z.M, z.N, z.K, config, params, mp[0],
         mp[1], mp[2], src);
  char why[768];
  CK(why_fn(z.M, z.N, z.K, why, sizeof why));
  printf("size %dx%dx%d: why: %s\n", z.M, z.N, z.K, why);
  return z.ref_ms > 0 ? z.ref_ms : (mp[0] == z.M && mp[1] == z.N && mp[2] == z.K ? rec_ms : -1);
}

// The time line of z (example_report) with its TFLOP/s (decimals: 2 or 1); 1 when too slow.
static int gemm_report(const gemm_size &z, double ms, int decimals, double ref, double within) {
  char label[64], rate[64];
  snprintf(label, sizeof label, "%dx%dx%d", z.M, z.N, z.K);
  snprintf(rate, sizeof rate, "%.*f TFLOP/s", decimals, 2.0 * (double)z.M * z.N * z.K / (ms * 1e-3) / 1e12);
  return example_report(label, ms, rate, ref, within);
}

#endif
