// shipfix: a tiny template for the header and Pareto tests (tests/ship/). Never timed: the
// stores beside it are hand-made fixtures with known winners (see make_fixtures.py).
#ifndef CUTUNE_REFERENCE
#ifndef A
#define A 1
#endif
#ifndef B
#define B 1
#endif
#ifndef C
#define C 0
#endif
extern "C" __global__ void scale(float *out, const float *in, int N, int K) {
  const int i = blockIdx.x * (32 * A) + threadIdx.x;
  if (i < N && threadIdx.y < B) out[i] = in[i] * (float)K + (float)C * 0.0f;
}
#else
extern "C" __global__ void scale_ref(float *out, const float *in, int N, int K) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = in[i] * (float)K;
}
#endif
