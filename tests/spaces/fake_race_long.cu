// Fixture for tests/cli_fake_race_early.sh (see fake_race_early.lua): a copy. The fake driver
// emulates copy_race_long by name (2 ms x 1024/B per launch); this code only has to compile.
// One kernel per template, so that the configurations compile in one batch, in the walk's order.
extern "C" __global__ void copy_race_long(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#ifdef CUTUNE_REFERENCE
extern "C" __global__ void copy_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
#endif
