// Configurations compile; the reference (compiled with -DCUTUNE_REFERENCE=1) does not.
extern "C" __global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2;
}
#ifdef CUTUNE_REFERENCE
extern "C" __global__ void scale_ref(float *out, const float *in, int n) {
  reference_does_not_compile(n);
}
#endif
