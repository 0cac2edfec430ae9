// Fixture for tests/cli_fake_race.sh (see fake_race.lua): a copy, unrolled U times per thread.
// The fake driver emulates copy_race by name; this code only has to compile.
#ifndef U
#define U 1
#endif
extern "C" __global__ void copy_race(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < U; k++)
    if (i + k * n / U < n) out[i + k * n / U] = in[i + k * n / U];
}
#ifdef CUTUNE_REFERENCE
extern "C" __global__ void copy_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#endif
