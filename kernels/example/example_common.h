// example_common.h: what the example programs share: their CUDA error check (CK), the device
// line (example_device), inputs filled on the GPU (fill_uniform), the timing of a tuned
// launcher the way cutune measures a configuration (time_launch), their --time / --within
// options (example_option) and the time line they print (example_report). Header-only, for nvcc.
//
// time_launch(launch, bytes): the median of 200 samples, each a batch of back-to-back launches
// of >= 0.5 ms when the working set (`bytes`) does not fit in twice the L2, else one launch per
// sample after a flush of the L2 (a memset of 2 x L2). ~2 ms of warm-up first.
#ifndef CUTUNE_EXAMPLE_COMMON_H
#define CUTUNE_EXAMPLE_COMMON_H

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

template <typename Launch>
static double time_launch(Launch launch, size_t bytes) {
  int dev, l2 = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  bool flush = bytes < 2 * (size_t)l2;
  void *scratch = NULL;
  if (flush) CK(cudaMalloc(&scratch, 2 * (size_t)l2));
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
  for (int i = 0; i < 200; i++) {
    if (flush) CK(cudaMemsetAsync(scratch, i & 0xff, 2 * (size_t)l2));
    else CK(launch());  // keeps the GPU busy while the batch is queued
    CK(cudaEventRecord(a));
    for (int k = 0; k < K; k++) CK(launch());
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    s.push_back(ms / K);
  }
  std::sort(s.begin(), s.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  if (scratch) CK(cudaFree(scratch));
  return 0.5 * (s[s.size() / 2 - 1] + s[s.size() / 2]);
}

// x[i] = a pseudo-random float in [-1, 1) from i and seed (the same on every run and GPU).
static __global__ void fill_uniform_kernel(float *x, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ull + seed;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    x[i] = (float)((h >> 40) & 0xFFFFFF) * (2.0f / 16777216.0f) - 1.0f;
  }
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

#endif
