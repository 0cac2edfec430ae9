// Fixture for tests/cli_fake_hgemm.sh (see fake_hgemm.lua): a bfloat16 GEMM, C = alpha*A*B + beta*C,
// with Acopy = A as a bfloat16 output. The fake libcuda emulates these kernels by name, with the
// planted errors of the runtime parameter V (tests/fake/fake_libcuda.c, fake_hgemm); this code is
// what they stand for, and what NVRTC compiles (the W=1 variant, for sm_90a, as the space's arch
// asks, is the same code).
__device__ __forceinline__ float bf(unsigned short h) { return __uint_as_float((unsigned)h << 16); }
#ifndef CUTUNE_REFERENCE
extern "C" __global__ void hgemm_fake(float *C, const unsigned short *A, const unsigned short *B, int M, int N, int K,
                                      float alpha, float beta, int V, unsigned short *Acopy) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (m >= M || n >= N) return;
  float s = 0.f;
  for (int k = 0; k < K; k++)
    if (!(V == 2 && k >= 16 && k < 32) && !(V == 3 && k == 5)) s += bf(A[(long long)m * K + k]) * bf(B[(long long)k * N + n]);
  C[(long long)m * N + n] = alpha * s + beta * C[(long long)m * N + n];
  if (n == 0)
    for (int k = 0; k < K; k++) Acopy[(long long)m * K + k] = A[(long long)m * K + k];
}
#else
extern "C" __global__ void hgemm_fake_ref(float *C, const unsigned short *A, const unsigned short *B, int M, int N,
                                          int K, float alpha, float beta, int V, unsigned short *Acopy) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
  if (m >= M || n >= N) return;
  double s = 0;
  for (int k = 0; k < K; k++) s += (double)bf(A[(long long)m * K + k]) * bf(B[(long long)k * N + n]);
  C[(long long)m * N + n] = (float)(alpha * s + beta * (double)C[(long long)m * N + n]);
  if (n == 0)
    for (int k = 0; k < K; k++) Acopy[(long long)m * K + k] = A[(long long)m * K + k];
}
#endif
