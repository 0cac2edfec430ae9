// vecadd_bench: side by side on one GPU, in one process, over n float32 elements:
//
//   cudaMemcpy D2D    copy of one n-element array (bytes read + written: 8n)
//   float4 copy       one float4 per thread, block 256 (8n bytes), as bench/transpose_bench.cu
//                     (bench_copy_float4 of bench/bench_common.cuh, which also times every row)
//   float4 copy g-s   a grid-stride float4 copy, 4 float4 in flight per thread (8n bytes)
//   vecadd seed-style one element per thread, block 256 (12n bytes: two reads, one write)
//   cutune best       templates/vecadd.cu built with the winner's -D flags (12n bytes)
//
// GB/s counts the bytes each kernel must move; "% copy" is that rate over the float4 copy
// kernel's at the same n. Each output is checked exactly; times are medians of cudaEvent pairs
// around single launches after a warm-up.
//
//   nvcc -O3 -arch=sm_90 -o vecadd_bench bench/vecadd_bench.cu [-DBLOCK=... -DVEC=...]
//   ./vecadd_bench [--sizes 268435456,16777216] [--reps 30] [--csv FILE] [--config TEXT]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../templates/vecadd.cu"
#include "bench_common.cuh"

// The first grid-stride copy of this benchmark (4 float4 in flight per thread, 8 blocks per SM),
// kept for comparison: it measured 92 % of cudaMemcpy on 2026-12-01.
__global__ void copy_f4_gs(float4 *__restrict__ d, const float4 *__restrict__ s, long long n4) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    float4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
    d[i] = a, d[i + stride] = b, d[i + 2 * stride] = c, d[i + 3 * stride] = e;
  }
  for (; i < n4; i += stride) d[i] = s[i];
}

__global__ void vecadd_simple(float *c, const float *a, const float *b, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void count_diff(const float *x, const float *y, long long n, unsigned long long *bad) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (x[i] != y[i]) atomicAdd(bad, 1ull);
}

int main(int argc, char **argv) {
  std::vector<long long> sizes = {1ll << 28, 1ll << 24};
  int reps = 30;
  const char *csv = nullptr, *config = "(template defaults)";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      sizes.clear();
      for (char *t = strtok(argv[++i], ","); t; t = strtok(nullptr, ",")) sizes.push_back(atoll(t));
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else if (!strcmp(argv[i], "--config") && i + 1 < argc) config = argv[++i];
    else { fprintf(stderr, "usage: %s [--sizes N,...] [--reps N] [--csv FILE] [--config TEXT]\n", argv[0]); return 2; }
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s (%d SMs, %.0f MiB L2)\ncutune best: %s\n", prop.name, prop.multiProcessorCount,
         prop.l2CacheSize / 1048576.0, config);
  FILE *cf = csv ? fopen(csv, "w") : nullptr;
  if (cf) fprintf(cf, "n,kernel,median_ms,gbps,share_of_float4_copy\n");
  unsigned long long *bad;
  CK(cudaMalloc(&bad, 8));
  for (long long n : sizes) {
    float *a, *b, *c, *r;
    for (float **p : {&a, &b, &c, &r}) CK(cudaMalloc(p, n * 4));
    bench_fill_uniform<<<1024, 256>>>(a, n, 1u, -0.5f, 0.5f);
    bench_fill_uniform<<<1024, 256>>>(b, n, 2u, -0.5f, 0.5f);
    vecadd_simple<<<(unsigned)((n + 255) / 256), 256>>>(r, a, b, n);
    CK(cudaDeviceSynchronize());
    const long long chunks = (n / VEC + (long long)BLOCK * EPT - 1) / ((long long)BLOCK * EPT);
    const long long grid = (GRID > 0 && GRID < chunks) ? GRID : std::max(1ll, chunks);
    const int cgrid = prop.multiProcessorCount * 8;
    struct Row { std::string name; double ms, bytes; };
    std::vector<Row> rows;
    auto check = [&](const char *name, const float *x, const float *y, long long m) {
      CK(cudaMemset(bad, 0, 8));
      count_diff<<<1024, 256>>>(x, y, m, bad);
      unsigned long long nb = 0;
      CK(cudaMemcpy(&nb, bad, 8, cudaMemcpyDeviceToHost));
      if (nb) { printf("ERROR: %s at n=%lld: %llu elements wrong\n", name, n, nb); exit(1); }
    };
    // correctness first
    CK(cudaMemset(c, 0xff, n * 4));
    vecadd<<<(unsigned)grid, BLOCK>>>(c, a, b, n);
    CK(cudaDeviceSynchronize());
    check("cutune best", c, r, n);
    CK(cudaMemset(c, 0xff, n * 4));
    const unsigned c1grid = (unsigned)((n / 4 + 255) / 256);
    bench_copy_float4<<<c1grid, 256>>>((float4 *)c, (const float4 *)a, n / 4);
    CK(cudaDeviceSynchronize());
    check("float4 copy", c, a, n / 4 * 4);
    rows.push_back({"cudaMemcpy D2D", bench_median_ms([&] { CK(cudaMemcpyAsync(c, a, n * 4, cudaMemcpyDeviceToDevice)); }, reps), 8.0 * n});
    rows.push_back({"float4 copy", bench_median_ms([&] { bench_copy_float4<<<c1grid, 256>>>((float4 *)c, (const float4 *)a, n / 4); }, reps), 8.0 * (n / 4 * 4)});
    rows.push_back({"float4 copy g-s", bench_median_ms([&] { copy_f4_gs<<<cgrid, 256>>>((float4 *)c, (const float4 *)a, n / 4); }, reps), 8.0 * (n / 4 * 4)});
    rows.push_back({"vecadd 1/thread", bench_median_ms([&] { vecadd_simple<<<(unsigned)((n + 255) / 256), 256>>>(c, a, b, n); }, reps), 12.0 * n});
    rows.push_back({"cutune best", bench_median_ms([&] { vecadd<<<(unsigned)grid, BLOCK>>>(c, a, b, n); }, reps), 12.0 * n});
    const double copy_gbps = rows[1].bytes / rows[1].ms / 1e6;
    printf("\nn = %lld (%.0f MiB per array)\n", n, n * 4 / 1048576.0);
    printf("  %-18s %10s %9s %9s\n", "kernel", "median ms", "GB/s", "% copy");
    for (auto &x : rows) {
      const double g = x.bytes / x.ms / 1e6;
      printf("  %-18s %10.4f %9.1f %8.1f%%\n", x.name.c_str(), x.ms, g, 100 * g / copy_gbps);
      if (cf) fprintf(cf, "%lld,%s,%.5f,%.1f,%.4f\n", n, x.name.c_str(), x.ms, g, g / copy_gbps);
    }
    for (float *p : {a, b, c, r}) CK(cudaFree(p));
  }
  if (cf) fclose(cf);
  return 0;
}
