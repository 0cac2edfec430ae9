// Fixture for tests/cli_fake_realk.sh: C++ kernels the fake libcuda.so.1 emulates by their lowered
// names (tests/fake): a template in a namespace, a kernel reading a __constant__ array, a
// reduction's first pass and its total. The code is real (NVRTC compiles it); the fake runs its
// own emulation of each name.
namespace ns {
template <int S> /* not K: the parameter K is a macro of the program */
__global__ void copy_tpl(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = S * in[i];
}
}  // namespace ns
__constant__ float c_add[16];
__global__ void copy_const(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + c_add[i % 16];
}
__global__ void partial_sum(float *out, const float *in, int n) {
  __shared__ float s[1024];
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 1; k < blockDim.x; k++) v += s[k];
    out[blockIdx.x] = v;
  }
}
extern "C" __global__ void total_sum(float *out, const float *in, int n) { partial_sum(out, in, n); }
extern "C" __global__ void copy_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#ifdef CUTUNE_CHECK
// A check of the space's own (check.kernel): the output must be twice the reference's. The fake
// runs its own emulation of the name (user_check).
extern "C" __global__ void user_check(const float *out, const float *ref, unsigned long long n,
                                      unsigned long long *res) {
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (out[i] != 2 * ref[i]) {
      atomicAdd(&res[0], 1ull);
      atomicMin(&res[1], i);
    }
}
#endif
