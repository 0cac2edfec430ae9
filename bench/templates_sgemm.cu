// templates_sgemm: one process, many configurations of templates/matmul.cu against cuBLAS, for
// bench/templates_session.sh (which generates the configuration units and the table this file
// declares, ts_configs.h, and builds them together with nvcc).
//
//   templates_sgemm [--shapes MxNxK,...] [--only NAME,...] [--reps N] [--sweep N] [--seed S]
//   templates_sgemm --profile MxNxK,... [--only NAME,...]   (under ncu: each kernel once)
//
// Per shape: cuBLAS SGEMM (row-major C = A*B + beta*C through the column-major B^T*A^T), with
// CUBLAS_DEFAULT_MATH and CUBLAS_PEDANTIC_MATH (NVIDIA_TF32_OVERRIDE unset), the faster counted;
// then every configuration (--only: those named): checked against a float64 reference kernel (an
// element passes when |c - ref| <= 4 * 2^-24 * max(K, 64) * max(1, |ref|): lua/matmul_space.lua's
// rule with this K), split-K and stream-K ones run twice more and compared bit for bit
// (deterministic), then timed (warm-ups for 50 ms, median of --reps launches each between its own event
// pair: bench/bench_common.cuh). The grid is kernels/matmul_launch.cu's: one tile per cluster, or
// with STREAMK a persistent grid of STREAMK blocks per SM of this GPU, no more clusters than it
// holds at once (cudaOccupancyMaxActiveClusters; lines "RESIDENT name ..."), with one
// workspace for all (MM_WS_FLOATS of the largest, its counters zeroed once: every launch leaves
// them at zero). A configuration built from an older template (its `legacy` flag: no workspace
// arguments) gets the same argument list, of which it reads the first nine. Lines:
//   ROW shape config ms tflops share_of_cublas ok|WRONG(n) [det|NONDET]
//   BEST shape config ms share
// then the geometric mean of the best shares, their minimum and how many are >= 1. --sweep N
// checks every configuration at N random sizes (1..700 each dimension, seeded; every fifth with
// no workspace: stream-K's whole-tile fallback) and prints SWEEP config passed/failed. Exit
// status 1 if any check failed. --profile: at each shape, each configuration launched once, in
// the order printed ("PROFILE i shape name": ncu's i-th kernel), nothing checked or timed.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "ts_configs.h"  // ts_mm_configs[], ts_mm_nconfigs (generated)

struct shape { int M, N, K; };

static __global__ void ts_ref(double *R, const float *C, const float *A, const float *B, int M, int N, int K,
                              float alpha, float beta) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  double s = 0.0;
  for (int k = 0; k < K; k++) s += (double)A[(long long)m * K + k] * (double)B[(long long)k * N + n];
  const long long i = (long long)m * N + n;
  R[i] = (double)alpha * s + (double)beta * (double)C[i];
}

static __global__ void ts_cmp(const float *C, const double *R, long long n, double tol, unsigned long long *bad) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const double d = fabs((double)C[i] - R[i]) / fmax(1.0, fabs(R[i]));
    if (!(d <= tol)) atomicAdd(bad, 1ull);
  }
}

struct bufs {
  float *A = nullptr, *B = nullptr, *C0 = nullptr, *C = nullptr, *C2 = nullptr;
  double *R = nullptr;
  unsigned long long *bad = nullptr;
};

static const float kAlpha = 1.0f, kBeta = 0.5f;

static int g_sms;          // multiprocessors of the device
static float *g_ws;        // the stream-K workspace of every configuration
static long long g_ws_floats;
static std::vector<long long> g_resident;  // per configuration: the clusters the GPU holds at once

// the clusters of a stream-K configuration in its persistent grid: STREAMK * SMs / SPLITK, and no
// more than the GPU holds at once (kernels/matmul_launch.cu's rule: cudaOccupancyMaxActiveClusters
// for clusters, blocks per SM times SMs without)
static long long sk_clusters(int i) {
  const ts_mm_config &c = ts_mm_configs[i];
  const long long per = (long long)c.streamk * g_sms / c.splitk;
  return g_resident[i] > 0 ? std::min(per, g_resident[i]) : per;
}
// blocks of configuration i at M x N x K (lua/matmul_space.lua's grid, with this GPU's SMs)
static long long blocks_of(int i, int M, int N, int K) {
  const ts_mm_config &c = ts_mm_configs[i];
  const long long tiles = (long long)((M + c.bm - 1) / c.bm) * ((N + c.bn - 1) / c.bn);
  if (c.streamk == 0) return tiles * c.splitk;
  const long long kt = K > c.bk ? (K + c.bk - 1) / c.bk : 1;
  return c.splitk * std::min(sk_clusters(i), tiles * kt);
}
// its workspace in floats (templates/matmul.cu's MM_WS_FLOATS) at the largest stream-K grid
static long long ws_need(int i) {
  const ts_mm_config &c = ts_mm_configs[i];
  if (c.streamk == 0) return 0;
  const long long g = c.splitk * sk_clusters(i);
  return 4096 + 2 * (g / c.splitk) * c.bm * c.bn;  // MM_WS_COUNTERS, then the partial tiles
}
static long long resident(const ts_mm_config &c) {
  int n = 0;
  if (c.splitk > 1) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(c.splitk * g_sms)), cfg.blockDim = dim3(c.threads), cfg.dynamicSmemBytes = c.smem;
    if (cudaOccupancyMaxActiveClusters(&n, c.fn, &cfg) != cudaSuccess) return (void)cudaGetLastError(), 0;
    return n;
  }
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, c.fn, (int)c.threads, c.smem));
  return (long long)n * g_sms;
}

static void launch(int i, float *C, const float *A, const float *B, int M, int N, int K, bool workspace = true) {
  const ts_mm_config &c = ts_mm_configs[i];
  const long long blocks = blocks_of(i, M, N, K);
  float alpha = kAlpha, beta = kBeta;
  int groupm = 8, ws_floats = workspace ? (int)g_ws_floats : 0;
  float *ws = g_ws;
  void *args[] = {&C, &A, &B, &M, &N, &K, &alpha, &beta, &groupm, &ws, &ws_floats};
  CK(cudaLaunchKernel(c.fn, dim3((unsigned)blocks), dim3(c.threads), args, c.smem, 0));
}

// Checks configuration c at one size (inputs already in b); returns the wrong elements (0: right),
// and sets *det to whether two more runs gave the same bits.
static unsigned long long check(int i, const bufs &b, int M, int N, int K, bool *det, bool workspace = true) {
  const ts_mm_config &c = ts_mm_configs[i];
  const size_t mn = (size_t)M * N;
  CK(cudaMemcpy(b.C, b.C0, mn * 4, cudaMemcpyDeviceToDevice));
  launch(i, b.C, b.A, b.B, M, N, K, workspace);
  CK(cudaGetLastError());
  CK(cudaMemset(b.bad, 0, 8));
  ts_cmp<<<1024, 256>>>(b.C, b.R, (long long)mn, 4 * std::ldexp(1.0, -24) * std::max(K, 64), b.bad);
  unsigned long long bad = 0;
  CK(cudaMemcpy(&bad, b.bad, 8, cudaMemcpyDeviceToHost));
  *det = true;
  if (c.splitk > 1 || c.streamk > 0) {
    std::vector<float> h1(mn), h2(mn);
    CK(cudaMemcpy(h1.data(), b.C, mn * 4, cudaMemcpyDeviceToHost));
    for (int rep = 0; rep < 2; rep++) {
      CK(cudaMemcpy(b.C2, b.C0, mn * 4, cudaMemcpyDeviceToDevice));
      launch(i, b.C2, b.A, b.B, M, N, K, workspace);
      CK(cudaMemcpy(h2.data(), b.C2, mn * 4, cudaMemcpyDeviceToHost));
      if (memcmp(h1.data(), h2.data(), mn * 4)) *det = false;
    }
  }
  return bad;
}

static void alloc(bufs &b, int M, int N, int K, unsigned seed) {
  const size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
  CK(cudaMalloc(&b.A, std::max<size_t>(mk, 1) * 4));
  CK(cudaMalloc(&b.B, std::max<size_t>(kn, 1) * 4));
  for (float **p : {&b.C0, &b.C, &b.C2}) CK(cudaMalloc(p, mn * 4));
  CK(cudaMalloc(&b.R, mn * 8));
  CK(cudaMalloc(&b.bad, 8));
  bench_fill_uniform<<<1024, 256>>>(b.A, (long long)mk, seed + 1, -1.f, 1.f);
  bench_fill_uniform<<<1024, 256>>>(b.B, (long long)kn, seed + 2, -1.f, 1.f);
  bench_fill_uniform<<<1024, 256>>>(b.C0, (long long)mn, seed + 3, -1.f, 1.f);
  ts_ref<<<dim3(bench_cdiv(N, 16), bench_cdiv(M, 16)), dim3(16, 16)>>>(b.R, b.C0, b.A, b.B, M, N, K, kAlpha, kBeta);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
}

static void release(bufs &b) {
  for (void *p : {(void *)b.A, (void *)b.B, (void *)b.C0, (void *)b.C, (void *)b.C2, (void *)b.R, (void *)b.bad}) CK(cudaFree(p));
  b = bufs();
}

int main(int argc, char **argv) {
  // issue 20's twelve (the judged set), then 4097^3 and 1000x1004x1000 (999x1003 with its leading
  // dimensions aligned: what the ragged paths cost)
  static const shape judged[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {6144, 6144, 6144}, {2048, 2048, 2048},
                                 {3000, 3000, 3000}, {512, 512, 512},    {1000, 1003, 999},  {1100, 1284, 1060},
                                 {1024, 8192, 2048}, {8192, 8192, 256},  {16384, 128, 4096}, {256, 256, 16384}};
  std::vector<shape> shapes(judged, judged + 12);
  shapes.push_back({4097, 4097, 4097});
  shapes.push_back({1000, 1004, 1000});
  int reps = 15, sweep = 0;
  unsigned seed = 1;
  std::string only;
  bool profile = false;
  for (int i = 1; i < argc; i++) {
    if ((!strcmp(argv[i], "--shapes") || !strcmp(argv[i], "--profile")) && i + 1 < argc) {
      profile = !strcmp(argv[i], "--profile");
      shapes.clear();
      for (char *t = strtok(argv[++i], ","); t; t = strtok(nullptr, ",")) {
        shape s;
        if (sscanf(t, "%dx%dx%d", &s.M, &s.N, &s.K) != 3) { fprintf(stderr, "bad shape '%s' (MxNxK)\n", t); return 2; }
        shapes.push_back(s);
      }
    } else if (!bench_candidate_option(argc, argv, &i, &only, &reps, &sweep, &seed)) {
      fprintf(stderr, "usage: %s [--shapes MxNxK,... | --profile MxNxK,...] [--only NAME,...] [--reps N] [--sweep N] [--seed S]\n",
              argv[0]);
      return 2;
    }
  }
  unsetenv("NVIDIA_TF32_OVERRIDE");
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s (sm_%d%d, %d SMs), %d configurations\n", prop.name, prop.major, prop.minor,
         prop.multiProcessorCount, ts_mm_nconfigs);
  g_sms = prop.multiProcessorCount;
  auto wanted = [&](const ts_mm_config &c) { return only.empty() || only.find("," + std::string(c.name) + ",") != std::string::npos; };
  g_resident.assign(ts_mm_nconfigs, 0);
  for (int i = 0; i < ts_mm_nconfigs; i++) {
    const ts_mm_config &c = ts_mm_configs[i];
    if (c.smem > 48 * 1024) CK(cudaFuncSetAttribute(c.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)c.smem));
    if (c.streamk > 0) {
      g_resident[i] = resident(c);
      printf("RESIDENT %s: %lld clusters of %d at once (%d SMs: STREAMK*SMs/SPLITK = %d); persistent grid %lld blocks\n",
             c.name, g_resident[i], c.splitk, g_sms, c.streamk * g_sms / c.splitk, c.splitk * sk_clusters(i));
    }
    g_ws_floats = std::max(g_ws_floats, ws_need(i));
  }
  if (g_ws_floats) {  // one workspace, its counters zero: every launch leaves them so
    CK(cudaMalloc(&g_ws, (size_t)g_ws_floats * 4));
    CK(cudaMemset(g_ws, 0, (size_t)g_ws_floats * 4));
  }
  if (profile) {
    int k = 0;
    for (const shape &s : shapes) {
      bufs b;
      alloc(b, s.M, s.N, s.K, seed);
      for (int i = 0; i < ts_mm_nconfigs; i++)
        if (wanted(ts_mm_configs[i])) {
          printf("PROFILE %d %dx%dx%d %s\n", k++, s.M, s.N, s.K, ts_mm_configs[i].name);
          launch(i, b.C, b.A, b.B, s.M, s.N, s.K);
        }
      CK(cudaDeviceSynchronize());
      release(b);
    }
    return 0;
  }
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  int failures = 0;
  double logsum = 0, worst = 1e30, logsum12 = 0, worst12 = 1e30;
  int at_or_above = 0, n12 = 0, above12 = 0;
  for (const shape &s : shapes) {
    bufs b;
    alloc(b, s.M, s.N, s.K, seed);
    const double flop = 2.0 * s.M * s.N * (double)s.K;
    const int r = flop > 2e11 ? std::max(5, reps / 2) : reps;
    double cub = 1e30;
    for (cublasMath_t mode : {CUBLAS_DEFAULT_MATH, CUBLAS_PEDANTIC_MATH}) {
      CKB(cublasSetMathMode(h, mode));
      const float alpha = kAlpha, beta = kBeta;
      cub = std::min(cub, bench_median_ms([&] {
        CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, s.N, s.M, s.K, &alpha, b.B, s.N, b.A, s.K, &beta, b.C, s.N));
      }, r));
    }
    printf("SHAPE %dx%dx%d cublas %.4f ms (%.2f TFLOP/s)\n", s.M, s.N, s.K, cub, flop / cub / 1e9);
    double best = 1e30;
    std::string best_name;
    for (int i = 0; i < ts_mm_nconfigs; i++) {
      const ts_mm_config &c = ts_mm_configs[i];
      if (!wanted(c)) continue;
      bool det;
      const unsigned long long bad = check(i, b, s.M, s.N, s.K, &det);
      const double ms = bench_median_ms([&] { launch(i, b.C, b.A, b.B, s.M, s.N, s.K); }, r);
      const bool ok = bad == 0 && det;
      if (!ok) failures++;
      char verdict[64];
      snprintf(verdict, sizeof verdict, bad ? "WRONG(%llu)" : "ok", bad);
      printf("ROW %dx%dx%d %-4s %8.4f ms %6.2f TFLOP/s %6.3f %s%s  %s\n", s.M, s.N, s.K, c.name, ms, flop / ms / 1e9,
             cub / ms, verdict, c.splitk > 1 || c.streamk > 0 ? (det ? " det" : " NONDET") : "", c.params);
      if (ok && !c.legacy && ms < best) best = ms, best_name = c.name;  // the old template is a control
    }
    const double share = cub / best;
    printf("BEST %dx%dx%d %s %.4f ms share %.3f\n", s.M, s.N, s.K, best_name.c_str(), best, share);
    logsum += std::log(share), worst = std::min(worst, share), at_or_above += share >= 1.0;
    for (const shape &j : judged)
      if (j.M == s.M && j.N == s.N && j.K == s.K) n12++, logsum12 += std::log(share), worst12 = std::min(worst12, share), above12 += share >= 1.0;
    release(b);
  }
  if (!shapes.empty())
    printf("SUMMARY sgemm best-of-candidates over %zu shapes: geomean %.3f of cuBLAS, min %.3f, %d at or above\n",
           shapes.size(), std::exp(logsum / shapes.size()), worst, at_or_above);
  if (n12)
    printf("SUMMARY12 over the %d of issue 20's shapes: geomean %.3f of cuBLAS, min %.3f, %d at or above "
           "(targets: >= 0.95, >= 0.85, >= 3)\n", n12, std::exp(logsum12 / n12), worst12, above12);
  // the correctness sweep: random sizes, every configuration
  unsigned x = seed * 2654435761u + 12345u;
  auto rnd = [&](int n) { x = x * 1664525u + 1013904223u; return 1 + (int)((x >> 8) % (unsigned)n); };
  std::vector<int> failed(ts_mm_nconfigs, 0);
  for (int t = 0; t < sweep; t++) {
    const int M = rnd(700), N = rnd(700), K = t % 5 == 0 ? rnd(12) : rnd(700);
    bufs b;
    alloc(b, M, N, K, seed + 17 * t);
    for (int i = 0; i < ts_mm_nconfigs; i++) {
      if (!wanted(ts_mm_configs[i])) continue;
      bool det;
      const bool ws = t % 5 != 4;  // every fifth size: no workspace (stream-K takes whole tiles)
      const unsigned long long bad = check(i, b, M, N, K, &det, ws);
      if (bad || !det) {
        if (!failed[i])
          printf("SWEEP-FAIL %s at %dx%dx%d%s: %llu wrong%s\n", ts_mm_configs[i].name, M, N, K, ws ? "" : " (no workspace)", bad,
                 det ? "" : ", not deterministic");
        failed[i]++;
      }
    }
    release(b);
  }
  if (sweep)
    for (int i = 0; i < ts_mm_nconfigs; i++) {
      if (!wanted(ts_mm_configs[i])) continue;
      printf("SWEEP %s %s (%d of %d sizes)\n", ts_mm_configs[i].name, failed[i] ? "FAILED" : "passed", sweep - failed[i], sweep);
      failures += failed[i];
    }
  if (g_ws) CK(cudaFree(g_ws));
  CKB(cublasDestroy(h));
  printf("%s\n", failures ? "SOME CHECKS FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
