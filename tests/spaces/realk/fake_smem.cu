// Fixture for tests/cli_fake_realk.sh: two kernels in one program, the second over the 48 KB of
// static shared memory when WORDS is 16384 (64 KB): ptxas reports the last entry of the source (the
// reference) first, and the limit must be found on the kernel's entry, named, and recorded invalid.
#ifndef WORDS /* the reference's own compile */
#define WORDS 1024
#endif
__global__ void smem_big(float *out, const float *in, int n) {
  __shared__ float s[WORDS];
  for (int k = threadIdx.x; k < WORDS; k += blockDim.x) s[k] = in[(blockIdx.x * WORDS + k) % n];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = s[(threadIdx.x * 7) % WORDS];
}
extern "C" __global__ void smem_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
