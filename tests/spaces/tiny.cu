// A tiny template for the space-loading tests (never compiled by them).
#ifndef TILE
#define TILE 32
#endif
extern "C" __global__ void tiny(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * TILE;
}
extern "C" __global__ void tiny_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 32;
}
