// sgemm_example: uses the tuned SGEMM (kernels/cutune_matmul.h) like an application would,
// checks C = alpha*A*B + beta*C against a float64 reference kernel on the GPU and, with --time,
// times it the way cutune does and compares with a reference time (the header's record where
// the size is the measured one, or one given per size).
//
//   sgemm_example [--time] [--within X] [MxNxK[=REF_MS]]...
//
// Default sizes: the matmul space's problems (4096^3, 1024x8192x2048, 1100x1284x1060,
// 1000x1003x999) and small ragged ones (1x1x1, 7x5x3, 33x65x17, 129x3x257, 5x7x0). Each size runs
// with alpha = 1, beta = 0.5 (as the space), small ones also with alpha = -0.75, beta = 0.
// An element passes when |c - ref| <= tol * max(1, |ref|), tol = 4 * 2^-24 * max(K, 64): the
// space's rule (lua/matmul_space.lua explains it) with the K of the size, floored so that the
// roundings of alpha*acc + beta*c count at tiny K; a real bug costs ~0.25 an element. The 64
// floats after C must stay untouched. Exit 0 when every check passes (and, with --within, every
// time is within X of its reference), 1 when not, 77 when there is no CUDA device.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cutune_matmul.h"
#include "example_common.h"

// The reference: one element per thread, float64 in order k = 0..K-1 (as templates/matmul.cu's).
static __global__ void sgemm_ref(double *R, const float *C, const float *A, const float *B, int M, int N, int K,
                                 float alpha, float beta) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  double s = 0.0;
  for (int k = 0; k < K; k++) s += (double)A[(long long)m * K + k] * (double)B[(long long)k * N + n];
  const long long i = (long long)m * N + n;
  R[i] = (double)alpha * s + (double)beta * (double)C[i];
}

static int check(const gemm_size &z, float alpha, float beta, float *A, float *B, float *C, double *R) {
  const long long count = (long long)z.M * z.N;
  fill_uniform(A, (long long)z.M * z.K, 1), fill_uniform(B, (long long)z.K * z.N, 2), fill_uniform(C, count, 3);
  gemm_set_guard<<<1, GEMM_GUARD>>>(C + count);
  CK(cudaGetLastError());
  dim3 rb(16, 16), rg((z.N + 15) / 16, (z.M + 15) / 16);
  sgemm_ref<<<rg, rb>>>(R, C, A, B, z.M, z.N, z.K, alpha, beta);
  CK(cudaGetLastError());
  CK(cutune_sgemm(z.M, z.N, z.K, alpha, A, B, beta, C, 0));
  CK(cudaGetLastError());
  return gemm_verify(z, alpha, beta, C, R, 4.0 * ldexp(1.0, -24) * (z.K > 64 ? z.K : 64));
}

int main(int argc, char **argv) {
  bool timing = false;
  double within = -1;
  std::vector<gemm_size> sizes;
  if (gemm_args(argc, argv, "sgemm_example",
                {{4096, 4096, 4096, -1},
                 {1024, 8192, 2048, -1},
                 {1100, 1284, 1060, -1},
                 {1000, 1003, 999, -1},
                 {1, 1, 1, -1},
                 {7, 5, 3, -1},
                 {33, 65, 17, -1},
                 {129, 3, 257, -1},
                 {5, 7, 0, -1}},
                &timing, &within, &sizes))
    return 2;
  if (int rc = example_device()) return rc;
  int bad = 0;
  for (const gemm_size &z : sizes) {
    const long long count = (long long)z.M * z.N;
    float *A, *B, *C;
    double *R;
    CK(cudaMalloc(&A, ((long long)z.M * z.K + 1) * sizeof(float)));
    CK(cudaMalloc(&B, ((long long)z.K * z.N + 1) * sizeof(float)));
    CK(cudaMalloc(&C, (count + GEMM_GUARD) * sizeof(float)));
    CK(cudaMalloc(&R, count * sizeof(double)));
    const double ref = gemm_describe(z, cutune_sgemm_describe, cutune_sgemm_why);
    bad |= check(z, 1.0f, 0.5f, A, B, C, R);
    if (count <= (1 << 20)) bad |= check(z, -0.75f, 0.0f, A, B, C, R);
    if (timing) {
      const double ms = time_launch([&] { return cutune_sgemm(z.M, z.N, z.K, 1.0f, A, B, 0.5f, C, 0); },
                                    4 * ((size_t)z.M * z.K + (size_t)z.K * z.N + 2 * (size_t)count));
      bad |= gemm_report(z, ms, 2, ref, within);
    }
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
    CK(cudaFree(R));
  }
  printf("%s\n", bad ? "FAILED" : "all sizes passed");
  return bad;
}
