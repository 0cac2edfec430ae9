// Fixture for tests/cli_inputs.sh: the kernel is its own reference, and it reads the parameter B,
// which has no default here: the reference's program (no parameter defines) does not compile.
extern "C" __global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) out[i] = in[i] * 2;
}
