// matmul_bench: side by side on one GPU, in one process, C = alpha*A*B + beta*C in float32
// (alpha = 1, beta = 0.5, as lua/matmul_space.lua), square N x N x N, row-major:
//
//   cublasSgemm DEFAULT     cuBLAS SGEMM, CUBLAS_DEFAULT_MATH (FP32 FFMA kernels; TF32 is used only
//                           with CUBLAS_TF32_TENSOR_OP_MATH or NVIDIA_TF32_OVERRIDE, which we unset)
//   cublasSgemm PEDANTIC    CUBLAS_PEDANTIC_MATH: strict FP32, no reduced-precision shortcuts
//   seed 16x16              the seed document's matmul_shared (16x16 shared tiles, one element
//                           per thread), extended with alpha/beta
//   cutune best             templates/matmul.cu built with the winner's -D flags
//
// Each kernel is checked against cuBLAS PEDANTIC (relative L2 error, must be < 1e-5), then timed:
// cudaEvent pairs around single launches after a warm-up, median of --reps (bench/bench_common.cuh). Inputs uniform in [-1, 1]
// (never zeros). Output: one line per kernel and size, and a CSV with --csv FILE.
//
//   nvcc -O3 -arch=sm_90 -o matmul_bench bench/matmul_bench.cu -lcublas [-DBM=128 -DBN=128 ...]
//   ./matmul_bench [--sizes 4096,2048,8192] [--reps 20] [--csv FILE] [--config "BM=...,..."]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../templates/matmul.cu"
#include "bench_common.cuh"
#include "matmul_grid.cuh"

// The seed's kernel (seeds/002, "矩阵乘法中的应用示例"), N a multiple of 16, with alpha/beta added.
__global__ void seed_matmul_shared(const float *A, const float *B, float *C, int N, float alpha, float beta) {
  __shared__ float sA[16][16];
  __shared__ float sB[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int bx = blockIdx.x, by = blockIdx.y;
  int row = by * 16 + ty, col = bx * 16 + tx;
  float sum = 0.0f;
  for (int i = 0; i < N; i += 16) {
    sA[ty][tx] = A[row * N + i + tx];
    sB[ty][tx] = B[(i + ty) * N + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += sA[ty][k] * sB[k][tx];
    __syncthreads();
  }
  C[row * N + col] = alpha * sum + beta * C[row * N + col];
}

int main(int argc, char **argv) {
  std::vector<int> sizes = {4096, 2048, 8192};
  int reps = 20;
  const char *csv = nullptr, *config = "(template defaults)";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      sizes.clear();
      for (char *t = strtok(argv[++i], ","); t; t = strtok(nullptr, ",")) sizes.push_back(atoi(t));
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else if (!strcmp(argv[i], "--config") && i + 1 < argc) config = argv[++i];
    else { fprintf(stderr, "usage: %s [--sizes 4096,2048,8192] [--reps N] [--csv FILE] [--config TEXT]\n", argv[0]); return 2; }
  }
  unsetenv("NVIDIA_TF32_OVERRIDE");
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int rt = 0, drv = 0, cbv = 0;
  cudaRuntimeGetVersion(&rt), cudaDriverGetVersion(&drv);
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  CKB(cublasGetVersion(h, &cbv));
  printf("device: %s (sm_%d%d, %d SMs), CUDA runtime %d, driver %d, cuBLAS %d\n", prop.name, prop.major, prop.minor,
         prop.multiProcessorCount, rt, drv, cbv);
  printf("cutune best: %s\n", config);
  printf("C = 1.0 * A*B + 0.5 * C, float32 row-major, inputs uniform in [-1,1]; median of %d launches\n", reps);
  FILE *cf = csv ? fopen(csv, "w") : nullptr;
  if (cf) fprintf(cf, "N,kernel,median_ms,tflops,share_of_cublas,rel_l2_err\n");

  const int threads = MM_THREADS;
  const size_t smem = mm_smem_bytes();
  CK(cudaFuncSetAttribute(matmul, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  const float alpha = 1.0f, beta = 0.5f;

  for (int N : sizes) {
    const size_t nn = (size_t)N * N;
    float *A, *B, *C0, *C, *R;
    for (float **p : {&A, &B, &C0, &C, &R}) CK(cudaMalloc(p, nn * 4));
    bench_fill_uniform<<<1024, 256>>>(A, nn, 1u, -1.0f, 1.0f);
    bench_fill_uniform<<<1024, 256>>>(B, nn, 2u, -1.0f, 1.0f);
    bench_fill_uniform<<<1024, 256>>>(C0, nn, 3u, -1.0f, 1.0f);
    CK(cudaGetLastError());
    const double flop = 2.0 * N * (double)N * N;
    // row-major C = A*B is column-major C^T = B^T * A^T: cuBLAS gets (B, A) with n, m swapped.
    auto cublas = [&](float *out) {
      CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &alpha, B, N, A, N, &beta, out, N));
    };
    auto seed = [&](float *out) {
      seed_matmul_shared<<<dim3(N / 16, N / 16), dim3(16, 16)>>>(A, B, out, N, alpha, beta);
    };
    mm_plan plan = mm_plan_for(N, N, N);
    auto tuned = [&](float *out) {
      matmul<<<plan.grid, threads, smem>>>(out, A, B, N, N, N, alpha, beta, GROUPM, plan.ws, plan.ws_floats);
    };

    // the reference output: cuBLAS pedantic on C0
    CKB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    CK(cudaMemcpy(R, C0, nn * 4, cudaMemcpyDeviceToDevice));
    cublas(R);
    CK(cudaDeviceSynchronize());
    std::vector<float> ref(nn), got(nn);
    CK(cudaMemcpy(ref.data(), R, nn * 4, cudaMemcpyDeviceToHost));

    struct Row { std::string name; double ms, err; };
    std::vector<Row> rows;
    auto measure = [&](const char *name, std::function<void(float *)> f, cublasMath_t mode) {
      CKB(cublasSetMathMode(h, mode));
      CK(cudaMemcpy(C, C0, nn * 4, cudaMemcpyDeviceToDevice));
      f(C);
      CK(cudaDeviceSynchronize());
      CK(cudaGetLastError());
      CK(cudaMemcpy(got.data(), C, nn * 4, cudaMemcpyDeviceToHost));
      double num = 0, den = 0;
      for (size_t i = 0; i < nn; i++) {
        double d = (double)got[i] - ref[i];
        num += d * d, den += (double)ref[i] * ref[i];
      }
      double err = std::sqrt(num / den);
      if (!(err < 1e-5)) printf("WARNING: %s at N=%d: relative L2 error %.3g against cuBLAS pedantic\n", name, N, err);
      double ms = bench_median_ms([&] { f(C); }, name[0] == 's' && N >= 8192 ? std::max(5, reps / 4) : reps);
      rows.push_back({name, ms, err});
    };
    measure("cublasSgemm DEFAULT", cublas, CUBLAS_DEFAULT_MATH);
    measure("cublasSgemm PEDANTIC", cublas, CUBLAS_PEDANTIC_MATH);
    measure("seed 16x16", seed, CUBLAS_DEFAULT_MATH);
    measure("cutune best", tuned, CUBLAS_DEFAULT_MATH);
    const double cub = std::min(rows[0].ms, rows[1].ms);
    printf("\nN = %d (%.1f GFLOP per launch)\n", N, flop / 1e9);
    printf("  %-22s %10s %9s %10s %11s\n", "kernel", "median ms", "TFLOP/s", "% cuBLAS", "rel L2 err");
    for (auto &r : rows) {
      printf("  %-22s %10.3f %9.2f %9.1f%% %11.2e\n", r.name.c_str(), r.ms, flop / r.ms / 1e9, 100 * cub / r.ms, r.err);
      if (cf) fprintf(cf, "%d,%s,%.5f,%.3f,%.4f,%.3e\n", N, r.name.c_str(), r.ms, flop / r.ms / 1e9, cub / r.ms, r.err);
    }
    for (float *p : {A, B, C0, C, R}) CK(cudaFree(p));
    mm_plan_free(plan);
  }
  if (cf) fclose(cf);
  CKB(cublasDestroy(h));
  return 0;
}
