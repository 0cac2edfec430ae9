// The fake-driver fixture's template (tests/spaces/fake_copy.lua): a vector copy whose kernel
// names, copy_ok, are the ones tests/fake/fake_libcuda.c emulates. Compiled by NVRTC like any
// template; its code runs only on a real GPU.
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef STRIDE
#define STRIDE 1
#endif
extern "C" __global__ void copy_ok(float *out, const float *in, unsigned n) {
  for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += STRIDE * gridDim.x * BLOCK) out[i] = in[i];
}
