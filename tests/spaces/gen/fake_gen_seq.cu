// Fixture for tests/cli_fake_gen.sh (see fake_gen_seq.lua): a reduction's two passes whose text a
// generator makes, its {{ NAME }} placeholders replaced by values of p. Code the fake libcuda.so.1
// (tests/fake) emulates by name; NVRTC compiles it for real.
#define CUTUNE_GEN_PASS {{ PASS }}
__global__ void partial_sum(float *out, const float *in, int n) {
  __shared__ float s[1024];
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 1; k < blockDim.x; k++) v += s[k];
    out[blockIdx.x] = v * (CUTUNE_GEN_PASS > 0 ? 1.0f : 0.0f);
  }
}
extern "C" __global__ void total_sum(float *out, const float *in, int n) { partial_sum(out, in, n); }
