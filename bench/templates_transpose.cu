// templates_transpose: one process, many configurations of templates/transpose.cu against
// cudaMemcpy, for bench/templates_session.sh (which generates the configuration units and their
// table, ts_configs.h, and builds them together with nvcc).
//
//   templates_transpose [--shapes RxC,...] [--only NAME,...] [--reps N] [--sweep N] [--seed S]
//   templates_transpose --profile RxC,... [--only NAME,...]     (under ncu: each kernel once)
//
// Per shape (R rows x C columns of `in`): cudaMemcpy device-to-device of the same bytes and a
// float4 copy kernel (bench_copy_float4), then every configuration (--only: those named):
// checked bit for bit against a one-element-per-thread transpose (output poisoned first), then
// timed; all timed the same way (warm-ups for 50 ms, median of --reps launches each between its own event
// pair: bench/bench_common.cuh). Lines:
//   COPY shape us share_of_memcpy          (the float4 copy kernel)
//   ROW shape config us share_of_memcpy ok|WRONG(n)
//   BEST shape config us share
// then the minimum of the best shares. --sweep N checks every configuration at N random sizes
// (1..1200 each side, seeded). Exit status 1 if any check failed.
//
// --profile: for Nsight Compute (bench/templates_session.sh runs it under ncu, which replays each
// launch with the caches flushed): at each shape, the float4 copy kernel and each configuration
// once, in the order printed ("PROFILE i shape name": ncu's i-th kernel), then, at the first
// shape's size, four scalar copies of n = R*C floats with the source / destination offset by 0 or
// 1 float (ts_copy_off, "PROFILE i shape copy+S+D"): what a misaligned read and a misaligned
// write cost, apart.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "ts_configs.h"  // ts_tr_configs[], ts_tr_nconfigs (generated)

struct shape { int R, C; };

static __global__ void ts_tref(float *out, const float *in, int N, int M) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < M && y < N) out[(long long)x * N + y] = in[(long long)y * M + x];
}

static __global__ void ts_tcmp(const unsigned *a, const unsigned *b, long long n, unsigned long long *bad) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (a[i] != b[i]) atomicAdd(bad, 1ull);
}

// dst[i + d] = src[i + s], one float per thread: with s or d = 1 every warp's access straddles
// two 128-byte lines and five 32-byte sectors, two of them in part
static __global__ void ts_copy_off(float *dst, const float *src, long long n, int s, int d) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i + d] = src[i + s];
}

static void launch(const ts_tr_config &c, float *out, const float *in, int N, int M) {
  // lua/transpose_space.lua's grid: with ALIGN, one more row of tiles where the rows of out shift
  const int gy = c.align && N % c.align ? bench_cdiv(N + c.align - 1, c.tile) : bench_cdiv(N, c.tile);
  dim3 grid = c.tile == 0 ? dim3(bench_cdiv(M, 32), bench_cdiv(N, c.rows)) : dim3(bench_cdiv(M, c.tile), bench_cdiv(gy, c.tpb));
  void *args[] = {&out, &in, &N, &M};
  CK(cudaLaunchKernel(c.fn, grid, dim3(c.bx, c.by), args, 0, 0));
}

static unsigned long long check(const ts_tr_config &c, float *out, const float *in, const float *ref, int N, int M,
                                unsigned long long *dbad) {
  const long long n = (long long)N * M;
  CK(cudaMemset(out, 0xff, n * 4));
  launch(c, out, in, N, M);
  CK(cudaGetLastError());
  CK(cudaMemset(dbad, 0, 8));
  ts_tcmp<<<1024, 256>>>((const unsigned *)out, (const unsigned *)ref, n, dbad);
  unsigned long long bad = 0;
  CK(cudaMemcpy(&bad, dbad, 8, cudaMemcpyDeviceToHost));
  return bad;
}

int main(int argc, char **argv) {
  std::vector<shape> shapes = {{8192, 8192}, {4096, 4096}, {16384, 16384}, {2048, 8192}, {12345, 6789},
                               {5555, 3333}, {4097, 4097}, {6789, 12345}, {8191, 8193}, {3001, 5003},
                               {1000, 3002}, {8190, 8194}};
  int reps = 30, sweep = 0;
  unsigned seed = 1;
  bool profile = false;
  std::string only;
  for (int i = 1; i < argc; i++) {
    if ((!strcmp(argv[i], "--shapes") || !strcmp(argv[i], "--profile")) && i + 1 < argc) {
      profile = !strcmp(argv[i], "--profile");
      shapes.clear();
      for (char *t = strtok(argv[++i], ","); t; t = strtok(nullptr, ",")) {
        shape s;
        if (sscanf(t, "%dx%d", &s.R, &s.C) != 2) { fprintf(stderr, "bad shape '%s' (RxC)\n", t); return 2; }
        shapes.push_back(s);
      }
    } else if (!bench_candidate_option(argc, argv, &i, &only, &reps, &sweep, &seed)) {
      fprintf(stderr, "usage: %s [--shapes RxC,... | --profile RxC,...] [--only NAME,...] [--reps N] [--sweep N] [--seed S]\n",
              argv[0]);
      return 2;
    }
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s (sm_%d%d, %d SMs), %d configurations\n", prop.name, prop.major, prop.minor,
         prop.multiProcessorCount, ts_tr_nconfigs);
  auto wanted = [&](const ts_tr_config &c) { return only.empty() || only.find("," + std::string(c.name) + ",") != std::string::npos; };
  unsigned long long *dbad;
  CK(cudaMalloc(&dbad, 8));
  if (profile) {  // each kernel once per shape, in the order printed (ncu reads them so)
    int k = 0;
    for (const shape &s : shapes) {
      const int N = s.R, M = s.C;
      const long long n = (long long)N * M;
      float *in, *out;
      for (float **p : {&in, &out}) CK(cudaMalloc(p, n * 4 + 64));
      bench_fill_uniform<<<1024, 256>>>(in, n, seed, -1.f, 1.f);
      printf("PROFILE %d %dx%d copy4\n", k++, N, M);
      bench_copy_float4<<<(unsigned)((n / 4 + 255) / 256), 256>>>((float4 *)out, (const float4 *)in, n / 4);
      for (int i = 0; i < ts_tr_nconfigs; i++)
        if (wanted(ts_tr_configs[i])) {
          printf("PROFILE %d %dx%d %s\n", k++, N, M, ts_tr_configs[i].name);
          launch(ts_tr_configs[i], out, in, N, M);
        }
      if (&s == &shapes[0])
        for (int o = 0; o < 4; o++) {
          printf("PROFILE %d %dx%d copy+%d+%d\n", k++, N, M, o & 1, o >> 1);
          ts_copy_off<<<(unsigned)((n + 255) / 256), 256>>>(out, in, n - 1, o & 1, o >> 1);
        }
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      for (float *p : {in, out}) CK(cudaFree(p));
    }
    return 0;
  }
  int failures = 0;
  double worst = 1e30, at8192 = 0;
  for (const shape &s : shapes) {
    const int N = s.R, M = s.C;
    const long long n = (long long)N * M;
    float *in, *out, *ref;
    for (float **p : {&in, &out, &ref}) CK(cudaMalloc(p, n * 4));
    bench_fill_uniform<<<1024, 256>>>(in, n, seed, -1.f, 1.f);
    ts_tref<<<dim3(bench_cdiv(M, 32), bench_cdiv(N, 8)), dim3(32, 8)>>>(ref, in, N, M);
    CK(cudaGetLastError());
    const double copy = bench_median_ms([&] { CK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice)); }, reps);
    printf("SHAPE %dx%d memcpy %.2f us (%.0f GB/s)\n", N, M, copy * 1e3, 8.0 * n / copy / 1e6);
    if (n % 4 == 0) {
      const double c4 = bench_median_ms([&] {
        bench_copy_float4<<<(unsigned)((n / 4 + 255) / 256), 256>>>((float4 *)out, (const float4 *)in, n / 4);
      }, reps);
      printf("COPY %dx%d %9.2f us %6.3f  (the float4 copy kernel)\n", N, M, c4 * 1e3, copy / c4);
    }
    double best = 1e30;
    std::string best_name;
    for (int i = 0; i < ts_tr_nconfigs; i++) {
      const ts_tr_config &c = ts_tr_configs[i];
      if (!wanted(c)) continue;
      const unsigned long long bad = check(c, out, in, ref, N, M, dbad);
      const double ms = bench_median_ms([&] { launch(c, out, in, N, M); }, reps);
      if (bad) failures++;
      char verdict[64];
      snprintf(verdict, sizeof verdict, bad ? "WRONG(%llu)" : "ok", bad);
      printf("ROW %dx%d %-3s %9.2f us %6.3f %s  %s\n", N, M, c.name, ms * 1e3, copy / ms, verdict, c.params);
      if (!bad && ms < best) best = ms, best_name = c.name;
    }
    printf("BEST %dx%d %s %.2f us share %.3f\n", N, M, best_name.c_str(), best * 1e3, copy / best);
    worst = std::min(worst, copy / best);
    if (N == 8192 && M == 8192) at8192 = copy / best;
    for (float *p : {in, out, ref}) CK(cudaFree(p));
  }
  if (!shapes.empty())
    printf("SUMMARY transpose best-of-candidates over %zu shapes: min %.3f of cudaMemcpy, 8192^2 %.3f\n", shapes.size(),
           worst, at8192);
  unsigned x = seed * 2654435761u + 777u;
  auto rnd = [&](int k) { x = x * 1664525u + 1013904223u; return 1 + (int)((x >> 8) % (unsigned)k); };
  std::vector<int> failed(ts_tr_nconfigs, 0);
  for (int t = 0; t < sweep; t++) {
    const int N = rnd(1200), M = rnd(1200);
    const long long n = (long long)N * M;
    float *in, *out, *ref;
    for (float **p : {&in, &out, &ref}) CK(cudaMalloc(p, n * 4));
    bench_fill_uniform<<<256, 256>>>(in, n, seed + t, -1.f, 1.f);
    ts_tref<<<dim3(bench_cdiv(M, 32), bench_cdiv(N, 8)), dim3(32, 8)>>>(ref, in, N, M);
    for (int i = 0; i < ts_tr_nconfigs; i++) {
      if (!wanted(ts_tr_configs[i])) continue;
      const unsigned long long bad = check(ts_tr_configs[i], out, in, ref, N, M, dbad);
      if (bad) {
        if (!failed[i]) printf("SWEEP-FAIL %s at %dx%d: %llu wrong\n", ts_tr_configs[i].name, N, M, bad);
        failed[i]++;
      }
    }
    for (float *p : {in, out, ref}) CK(cudaFree(p));
  }
  if (sweep)
    for (int i = 0; i < ts_tr_nconfigs; i++) {
      if (!wanted(ts_tr_configs[i])) continue;
      printf("SWEEP %s %s (%d of %d sizes)\n", ts_tr_configs[i].name, failed[i] ? "FAILED" : "passed", sweep - failed[i], sweep);
      failures += failed[i];
    }
  CK(cudaFree(dbad));
  printf("%s\n", failures ? "SOME CHECKS FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
