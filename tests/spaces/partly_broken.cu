// A template that compiles for every X but 2: the compile error must be reported with its
// line and the options used, and the rest of the space must still compile.
#ifndef X
#define X 1
#endif
extern "C" __global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if X == 2
  this_is_not_cuda(i);
#endif
  if (i < n) out[i] = in[i] * X;
}
#ifdef CUTUNE_REFERENCE
extern "C" __global__ void scale_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#endif
