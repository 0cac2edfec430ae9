// hgemm_example: uses the tuned BF16 GEMM (kernels/cutune_hgemm.h) like an application would,
// checks C = alpha*A*B + beta*C against a float64 reference kernel on the GPU (the same bfloat16
// inputs) and, with --time, times it the way cutune does and compares with a reference time (the
// header's record where the size is the measured one, or one given per size).
//
//   hgemm_example [--time] [--within X] [MxNxK[=REF_MS]]...
//
// Default sizes: the hgemm space's problems (4096^3, 1000x1003x999, 256x256x16384), sizes whose
// operands are 8- and 4-byte aligned only (1100x1284x1060, 130x78x98) and small ragged ones
// (1x1x1, 7x5x3, 33x65x17, 129x3x257, 64x64x8, 5x7x0). Each size runs with alpha = 1, beta = 0.5
// (as the space), small ones also with alpha = -0.75, beta = 0 (C then starts as NaN: it must
// not be read). An element passes when |c - ref| <= tol * max(1, |ref|), tol = 16 * 2^-24 *
// max(K, 64): lua/hgemm.lua's rule (it explains it) with the K of the size. The 64 floats after C
// must stay untouched. Exit 0 when every check passes (and, with --within, every time is within X
// of its reference), 1 when not, 77 when there is no CUDA device.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "cutune_hgemm.h"
#include "example_common.h"

// x[i] = example_uniform(i, seed) rounded to bfloat16 (to nearest even)
static __global__ void fill_bf16(__nv_bfloat16 *x, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = __float2bfloat16_rn(example_uniform(i, seed));
}
static __global__ void fill_nan(float *x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = __int_as_float(0x7fc00000);
}

// The reference: one element per thread, float64 in order k = 0..K-1 (as templates/hgemm.cu's).
static __global__ void hgemm_ref64(double *R, const float *C, const __nv_bfloat16 *A, const __nv_bfloat16 *B, int M,
                                   int N, int K, float alpha, float beta) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  double s = 0.0;
  for (int k = 0; k < K; k++)
    s += (double)__bfloat162float(A[(long long)m * K + k]) * (double)__bfloat162float(B[(long long)k * N + n]);
  const long long i = (long long)m * N + n;
  R[i] = (double)alpha * s + (beta != 0.f ? (double)beta * (double)C[i] : 0.0);
}

static int check(const gemm_size &z, float alpha, float beta, __nv_bfloat16 *A, __nv_bfloat16 *B, float *C, double *R) {
  const long long count = (long long)z.M * z.N;
  if ((long long)z.M * z.K) fill_bf16<<<1024, 256>>>(A, (long long)z.M * z.K, 1);
  if ((long long)z.K * z.N) fill_bf16<<<1024, 256>>>(B, (long long)z.K * z.N, 2);
  if (beta != 0.f) fill_uniform(C, count, 3);
  else fill_nan<<<1024, 256>>>(C, count);
  gemm_set_guard<<<1, GEMM_GUARD>>>(C + count);
  CK(cudaGetLastError());
  dim3 rb(16, 16), rg((z.N + 15) / 16, (z.M + 15) / 16);
  hgemm_ref64<<<rg, rb>>>(R, C, A, B, z.M, z.N, z.K, alpha, beta);
  CK(cudaGetLastError());
  CK(cutune_hgemm(z.M, z.N, z.K, alpha, A, B, beta, C, 0));
  CK(cudaGetLastError());
  return gemm_verify(z, alpha, beta, C, R, 16.0 * ldexp(1.0, -24) * (z.K > 64 ? z.K : 64));
}

int main(int argc, char **argv) {
  bool timing = false;
  double within = -1;
  std::vector<gemm_size> sizes;
  if (gemm_args(argc, argv, "hgemm_example",
                {{4096, 4096, 4096, -1},
                 {1000, 1003, 999, -1},
                 {256, 256, 16384, -1},
                 {1100, 1284, 1060, -1},
                 {130, 78, 98, -1},
                 {1, 1, 1, -1},
                 {7, 5, 3, -1},
                 {33, 65, 17, -1},
                 {129, 3, 257, -1},
                 {64, 64, 8, -1},
                 {5, 7, 0, -1}},
                &timing, &within, &sizes))
    return 2;
  if (int rc = example_device()) return rc;
  int bad = 0;
  for (const gemm_size &z : sizes) {
    const long long count = (long long)z.M * z.N;
    __nv_bfloat16 *A, *B;
    float *C;
    double *R;
    CK(cudaMalloc(&A, ((long long)z.M * z.K + 8) * sizeof(__nv_bfloat16)));
    CK(cudaMalloc(&B, ((long long)z.K * z.N + 8) * sizeof(__nv_bfloat16)));
    CK(cudaMalloc(&C, (count + GEMM_GUARD) * sizeof(float)));
    CK(cudaMalloc(&R, count * sizeof(double)));
    const double ref = gemm_describe(z, cutune_hgemm_describe, cutune_hgemm_why_size);
    bad |= check(z, 1.0f, 0.5f, A, B, C, R);
    if (count <= (1 << 20)) bad |= check(z, -0.75f, 0.0f, A, B, C, R);
    if (timing) {
      const double ms = time_launch([&] { return cutune_hgemm(z.M, z.N, z.K, 1.0f, A, B, 0.5f, C, 0); },
                                    2 * ((size_t)z.M * z.K + (size_t)z.K * z.N) + 8 * (size_t)count);
      bad |= gemm_report(z, ms, 1, ref, within);
    }
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
    CK(cudaFree(R));
  }
  printf("%s\n", bad ? "FAILED" : "all sizes passed");
  return bad;
}
