// Fixture for tests/cli_errors.sh: a template parameter named as a parameter of the space
// (tpl_clash.lua): -DBLOCK=64 turns it into `template <int 64, ...>`; the message must say so.
template <int BLOCK, typename T>
__global__ void scale(T *out, const T *in, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = in[i] * 2;
}
extern "C" __global__ void scale_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2;
}
