// Fixture for tests/cli_shapes_run.sh (see fake_shapes.lua): a copy; the fake libcuda.so.1 times
// copy_shaped by its block size against n, so each shape has its own winner.
#ifndef U
#define U 1
#endif
extern "C" __global__ void copy_shaped(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * (float)(U * 0 + 1);
}
#ifdef CUTUNE_REFERENCE
extern "C" __global__ void copy_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#endif
