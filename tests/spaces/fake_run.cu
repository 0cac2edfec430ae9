// Fixture for tests/cli_fake_run.sh (see fake_run.lua): a copy, unrolled U times per thread.
// The included header is part of the store's template hash: editing it re-measures.
#include "fake_run_inc.cuh"
#ifndef U
#define U 1
#endif
extern "C" __global__ void copy_ok(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int k = 0; k < U; k++)
    if (i * U + k < n) out[i * U + k] = FAKE_RUN_COPY(in[i * U + k]);
}
#ifdef CUTUNE_REFERENCE
extern "C" __global__ void copy_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#endif
