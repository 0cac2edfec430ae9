// Fixture for tests/cli_compile_batch.sh: a C++ kernel (its name mangled) whose static shared
// memory passes 48 KB for WORDS >= 16384. In a batch, ptxas reports every entry's resources and
// refuses the program without an error line: the members over the limit get their own invalid
// result from that report, and the others are batched again, not compiled alone.
#ifndef WORDS
#define WORDS 1024
#endif
__global__ void smem_k(float *out, const float *in, int n) {
  __shared__ float stage[WORDS]; /* the block's stretch of in, read back reversed */
  const int base = blockIdx.x * blockDim.x;
  if (threadIdx.x < WORDS) stage[threadIdx.x] = base + threadIdx.x < n ? in[base + threadIdx.x] : 0.0f;
  __syncthreads();
  if (base + threadIdx.x < n) out[base + threadIdx.x] = stage[threadIdx.x] + 0.0f * stage[WORDS - 1];
}
#ifdef CUTUNE_REFERENCE
extern "C" __global__ void smem_k_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#endif
