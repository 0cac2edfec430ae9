// Fixture for tests/cli_compile_batch.sh: a C++ kernel (no extern "C": its name in the cubin is
// mangled) that batches: each member's kernel is found by its name expression. The fake
// libcuda.so.1 runs copy_ok by its last name; this code only has to compile.
#ifndef U
#define U 1
#endif
__global__ void copy_ok(float *out, const float *in, int n) {
  for (int i = (blockIdx.x * blockDim.x + threadIdx.x) * U; i < n && U > 0; i += gridDim.x * blockDim.x * U)
    for (int k = 0; k < U && i + k < n; k++) out[i + k] = in[i + k];
}
#ifdef CUTUNE_REFERENCE
extern "C" __global__ void copy_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#endif
