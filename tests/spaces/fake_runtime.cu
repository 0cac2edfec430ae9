// Fixture for tests/cli_fake_runtime.sh (see fake_runtime.lua): a copy unrolled U times per thread
// (U a -D), with the runtime parameters R and S as arguments. Without -DR or -DS: were either
// passed as a -D, the parameter names below would be replaced and this would not compile.
#ifndef U
#define U 1
#endif
extern "C" __global__ void copy_rt(float *out, const float *in, int n, int R, int S) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < U; k++)
    if (i * U + k < n) out[i * U + k] = in[i * U + k] + (R == 2 ? 0.f : 1.f) * (S >= 0 ? 1.f : 0.f);
}
#ifdef CUTUNE_REFERENCE
extern "C" __global__ void copy_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#endif
