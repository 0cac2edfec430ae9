// Fixture for tests/cli_compile_batch.sh (see batch_breaks.lua): the extern "C" device
// function is one C name for every member of a batch, defined once per member.
#ifndef X
#define X 1
#endif
extern "C" __device__ float times_x(float v) { return v * X; }
extern "C" __global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = times_x(in[i]);
}
#ifdef CUTUNE_REFERENCE
extern "C" __global__ void scale_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#endif
