// Fixture of tests/cli_fake_init.sh: a state that a kernel sets up once per problem (the space's
// init launch, as Kernel Tuner's curand.py sets up its curandState array with setup_kernel), which
// each launch of the tuned kernel reads and advances (an inout). The fake driver runs both: it
// fails draw_state on a state that init_state did not make (as the seeded fill is), so a run
// passes only where the init ran before the reference and every run starts from its output.
extern "C" __global__ void init_state(float *state, long long seed, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x; /* the init's program defines BLOCK (its defines) */
  if (i < n) state[i] = (float)(seed + i);
}

extern "C" __global__ void draw_state(float *out, float *state, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) {
    out[i] = state[i];
    state[i] += 1000.0f;
  }
}
