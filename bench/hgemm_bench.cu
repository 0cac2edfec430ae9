// hgemm_bench: side by side on one GPU, in one process, C = alpha*A*B + beta*C with A and B in
// bfloat16 (B K x N, all row-major), C float32, alpha = 1, beta = 0.5 (as lua/hgemm.lua):
//
//   cublasGemmEx   CUDA_R_16BF inputs, CUDA_R_32F C, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT, default
//                  math (tensor cores, float32 accumulation), computed as C^T = B^T A^T
//   cutune_hgemm   the production launcher (kernels/hgemm_launch.cu) from a header: the build with
//                  -DHGB_LAUNCHER, linked with the units bench/hgemm.sh generates from it
//   one row per configuration of a list (the table build, bench/hgemm_build.sh: each configuration
//                  is templates/hgemm.cu with its -D values), launched with GROUPM = --groupm (8)
//                  and SPLITK = --split, or where that is 0 (the default) the launcher's rule: 1
//                  where C has a wave of tiles, else enough splits to fill the GPU
//
// Every output is checked first against a float64 reference kernel of the same bfloat16 inputs
// (|c - ref| <= 16 * 2^-24 * max(K, 64) * max(1, |ref|): lua/hgemm.lua's rule), then timed:
// CUDA event pairs around single launches after a warm-up, back to back, median of --reps
// (bench/bench_common.cuh). Output: one line per kernel and shape, a table of each shape's best
// and cuBLAS with the ratio, and the geometric mean of the ratios; --csv FILE writes the rows.
//
//   hgemm_bench [--shapes MxNxK,...] [--reps N] [--csv FILE] [--check-only] [--split S] [--groupm G]
//               [--only I,J]
// --check-only: check every kernel at every shape, no timing and no cuBLAS (for compute-sanitizer:
// give small shapes). --only: the table build's configurations I, J (0-based) only.
// Default shapes: the SGEMM shape list of the "every shape" issue (bench/hgemm.sh's). Exit status 1
// when a check fails.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_common.cuh"
#ifdef HGB_LAUNCHER
#include "cutune_hgemm.h"
#else
#include "hgemm_bench.cuh"
#include "../kernels/hgemm_tmap.h"
#endif

struct shape {
  int M, N, K;
};

static __global__ void fill_bf16(__nv_bfloat16 *x, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ull + seed;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    x[i] = __float2bfloat16_rn((float)((h >> 40) & 0xFFFFFF) * (2.0f / 16777216.0f) - 1.0f);
  }
}
static __global__ void fill_f32(float *x, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ull + seed;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    x[i] = (float)((h >> 40) & 0xFFFFFF) * (2.0f / 16777216.0f) - 1.0f;
  }
}
// R = alpha * A B + beta * C0 in float64, one element per thread (k = 0..K-1)
static __global__ void ref64(double *R, const float *C0, const __nv_bfloat16 *A, const __nv_bfloat16 *B, int M, int N,
                             int K, float alpha, float beta) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  double s = 0.0;
  for (int k = 0; k < K; k++)
    s += (double)__bfloat162float(A[(long long)m * K + k]) * (double)__bfloat162float(B[(long long)k * N + n]);
  const long long i = (long long)m * N + n;
  R[i] = (double)alpha * s + (double)beta * (double)C0[i];
}
// res[0]: elements outside the tolerance; res[1]: the largest relative error (float bits)
static __global__ void compare(const float *C, const double *R, long long n, double tol, unsigned long long *bad,
                               unsigned *err) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const double d = fabs((double)C[i] - R[i]) / fmax(1.0, fabs(R[i]));
    if (!(d <= tol)) atomicAdd(bad, 1ull);
    if (d == d) atomicMax(err, __float_as_uint((float)d));
  }
}

// a kernel under test: run(C) computes C = A B + 0.5 C on the stream (0: ok)
struct row {
  std::string name;
  std::function<cudaError_t(float *C)> run;
};

#ifndef HGB_LAUNCHER
static int choose_split(int M, int N, int K, int bm, int bn, int bk, int sms) {  // as kernels/hgemm_launch.cu
  const long long tiles = (long long)((M + bm - 1) / bm) * ((N + bn - 1) / bn), kt = (K + bk - 1) / bk;
  int s = 1;
  if (tiles >= sms) return 1;
  while (s < 16 && tiles * 2 * s <= 2LL * sms && kt / (2 * s) >= 4) s *= 2;
  return s;
}
#endif

int main(int argc, char **argv) {
  std::vector<shape> shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {6144, 6144, 6144}, {2048, 2048, 2048},
                               {3000, 3000, 3000}, {512, 512, 512},    {1000, 1003, 999},  {1100, 1284, 1060},
                               {1024, 8192, 2048}, {8192, 8192, 256},  {16384, 128, 4096}, {256, 256, 16384}};
  int reps = 20, split = 0, groupm = 8;
  bool check_only = false;
  const char *csv = nullptr;
  std::vector<int> only;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
      shapes.clear();
      for (char *t = strtok(argv[++i], ","); t; t = strtok(nullptr, ",")) {
        shape s;
        if (sscanf(t, "%dx%dx%d", &s.M, &s.N, &s.K) != 3 || s.M < 1 || s.N < 1 || s.K < 1) {
          fprintf(stderr, "hgemm_bench: bad shape '%s' (MxNxK)\n", t);
          return 2;
        }
        shapes.push_back(s);
      }
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else if (!strcmp(argv[i], "--split") && i + 1 < argc) split = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--groupm") && i + 1 < argc) groupm = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--check-only")) check_only = true;
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
      for (char *t = strtok(argv[++i], ","); t; t = strtok(nullptr, ",")) only.push_back(atoi(t));
    } else {
      fprintf(stderr, "usage: hgemm_bench [--shapes MxNxK,...] [--reps N] [--csv FILE] [--check-only] [--split S] "
                      "[--groupm G] [--only I,J]\n");
      return 2;
    }
  }
  int dev = 0, nd = 0;
  if (cudaGetDeviceCount(&nd) != cudaSuccess || nd == 0) {
    printf("no CUDA device: nothing to run\n");
    return 77;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  CKB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  FILE *out = csv ? fopen(csv, "w") : nullptr;
  if (out) fprintf(out, "M,N,K,kernel,ms,tflops,share_of_cublas,check\n");
  int bad = 0;
  double logsum = 0;
  int nlog = 0;
  for (const shape &z : shapes) {
    const long long nA = (long long)z.M * z.K, nB = (long long)z.K * z.N, nC = (long long)z.M * z.N;
    __nv_bfloat16 *A, *B;
    float *C, *C0;
    double *R;
    CK(cudaMalloc(&A, nA * 2 + 16));
    CK(cudaMalloc(&B, nB * 2 + 16));
    CK(cudaMalloc(&C, nC * 4));
    CK(cudaMalloc(&C0, nC * 4));
    CK(cudaMalloc(&R, nC * 8));
    fill_bf16<<<1024, 256>>>(A, nA, 1);
    fill_bf16<<<1024, 256>>>(B, nB, 2);
    fill_f32<<<1024, 256>>>(C0, nC, 3);
    ref64<<<dim3((z.N + 15) / 16, (z.M + 15) / 16), dim3(16, 16)>>>(R, C0, A, B, z.M, z.N, z.K, 1.0f, 0.5f);
    CK(cudaGetLastError());
    std::vector<row> rows;
    const int M = z.M, N = z.N, K = z.K;
    if (!check_only)
      rows.push_back({"cublasGemmEx", [&, M, N, K](float *c) {
                        const float alpha = 1.0f, beta = 0.5f;
                        cublasStatus_t s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_16BF, N,
                                                        A, CUDA_R_16BF, K, &beta, c, CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                                                        CUBLAS_GEMM_DEFAULT);
                        return s == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
                      }});
#ifdef HGB_LAUNCHER
    {
      char params[256] = "";
      CK(cutune_hgemm_describe(M, N, K, nullptr, params, sizeof params, nullptr, nullptr, nullptr));
      rows.push_back({std::string("cutune_hgemm ") + params,
                      [&, M, N, K](float *c) { return cutune_hgemm(M, N, K, 1.0f, A, B, 0.5f, c, 0); }});
    }
#else
    int nconf = 0;
    const hgb_config *const *cf = hgb_configs(&nconf);
    static int *flags = nullptr;
    if (!flags) {
      CK(cudaMalloc(&flags, 65536 * sizeof(int)));
      CK(cudaMemset(flags, 0, 65536 * sizeof(int)));
    }
    for (int i = 0; i < nconf; i++) {
      if (!only.empty() && std::find(only.begin(), only.end(), i) == only.end()) continue;
      const hgb_config c = *cf[i];
      if (c.wg == 1 && !(prop.major == 9 && prop.minor == 0)) continue;
      if (c.smem > 48 * 1024) CK(cudaFuncSetAttribute(c.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, c.smem));
      const long long tiles = (long long)((M + c.bm - 1) / c.bm) * ((N + c.bn - 1) / c.bn);
      int s = split > 0 ? split : choose_split(M, N, K, c.bm, c.bn, c.bk, prop.multiProcessorCount);
      if (tiles > 65536) s = 1;
      char name[320];
      snprintf(name, sizeof name, "[%d] %s GROUPM=%d SPLITK=%d", i, c.name, groupm, s);
      rows.push_back({name, [&, M, N, K, c, s, tiles](float *cc) {
                        int m = M, n = N, k = K, g = groupm, sp = s;
                        float alpha = 1.0f, beta = 0.5f;
                        const __nv_bfloat16 *a = A, *b = B;
                        int *f = flags;
                        hgemm_maps maps;  // TMA=1: A and B through these (zero: the cp.async path)
                        if (c.tma) hgemm_encode_maps(a, b, m, n, k, c.bm, c.bk, c.swz, &maps);
                        else memset(&maps, 0, sizeof maps);
                        void *args[] = {&cc, &a, &b, &m, &n, &k, &alpha, &beta, &g, &sp, &f, &maps.a, &maps.b};
                        return cudaLaunchKernel(c.kernel, dim3((unsigned)(tiles * s)), dim3(c.threads), args,
                                                (size_t)c.smem, 0);
                      }});
    }
#endif
    unsigned long long *nbad;
    unsigned *err;
    CK(cudaMallocManaged(&nbad, sizeof *nbad));
    CK(cudaMallocManaged(&err, sizeof *err));
    const double tol = 16.0 * ldexp(1.0, -24) * (K > 64 ? K : 64), flops = 2.0 * M * N * K;
    double cublas_ms = NAN, best_ms = INFINITY;
    std::string best;
    for (const row &r : rows) {
      CK(cudaMemcpy(C, C0, nC * 4, cudaMemcpyDeviceToDevice));
      CK(r.run(C));
      *nbad = 0, *err = 0;
      compare<<<1024, 256>>>(C, R, nC, tol, nbad, err);
      CK(cudaDeviceSynchronize());
      float e;
      memcpy(&e, err, sizeof e);
      const bool ok = *nbad == 0;
      bad |= !ok;
      double ms = NAN;
      if (!check_only) ms = bench_median_ms([&] { CK(r.run(C)); }, reps);
      const bool is_cublas = r.name == "cublasGemmEx";
      if (is_cublas) cublas_ms = ms;
      else if (ok && ms < best_ms) best_ms = ms, best = r.name;
      printf("%5dx%5dx%5d  %-100s %9.4f ms %7.1f TFLOP/s  %s (max rel. error %.2g, tolerance %.2g)\n", M, N, K,
             r.name.c_str(), ms, flops / (ms * 1e-3) / 1e12, ok ? "ok" : "WRONG", e, tol);
      if (!ok) printf("      %llu of %lld elements outside the tolerance\n", *nbad, nC);
      if (out)
        fprintf(out, "%d,%d,%d,\"%s\",%.6f,%.2f,%.4f,%s\n", M, N, K, r.name.c_str(), ms, flops / (ms * 1e-3) / 1e12,
                is_cublas ? 1.0 : cublas_ms / ms, ok ? "ok" : "wrong");
    }
    if (!check_only && std::isfinite(best_ms) && std::isfinite(cublas_ms)) {
      printf("%5dx%5dx%5d  best: %.1f TFLOP/s = %.1f %% of cuBLAS's %.1f TFLOP/s  (%s)\n", M, N, K,
             flops / (best_ms * 1e-3) / 1e12, 100 * cublas_ms / best_ms, flops / (cublas_ms * 1e-3) / 1e12,
             best.c_str());
      logsum += log(cublas_ms / best_ms), nlog++;
    }
    CK(cudaFree(nbad));
    CK(cudaFree(err));
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
    CK(cudaFree(C0));
    CK(cudaFree(R));
  }
  if (nlog) printf("geometric mean of best / cuBLAS over %d shapes: %.3f\n", nlog, exp(logsum / nlog));
  if (out) fclose(out);
  cublasDestroy(h);
  printf("%s\n", bad ? "FAILED: a check failed" : "all checks passed");
  return bad;
}
