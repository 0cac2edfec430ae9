/* fake_kernels: kernels the fake libcuda.so.1 (fake_launch.c) emulates for the tests of typed
 * buffers and init launches, and the float conversions they share with it (bfloat16, IEEE half). */
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fake_kernels.h"

float bf2f(unsigned short h) {
  unsigned x = (unsigned)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}
unsigned short f2bf(float f) {
  unsigned x;
  memcpy(&x, &f, 4);
  return (unsigned short)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* IEEE half <-> float (round to nearest even), for add_typed in half and ct_widen */
float h2f(unsigned short h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400), e - 25);
  return h & 0x8000 ? -v : v;
}
unsigned short f2h(float f) {
  unsigned short sign = signbit(f) ? 0x8000 : 0;
  float a = fabsf(f);
  if (isnan(f)) return 0x7e00;
  if (a >= 65520.0f) return sign | 0x7c00;
  int e;
  frexpf(a, &e);                                 /* a = m 2^e, m in [0.5, 1) */
  int q = e - 11 < -24 ? -24 : e - 11;           /* the ulp's exponent: 10 mantissa bits, subnormals below 2^-14 */
  float r = nearbyintf(ldexpf(a, -q));           /* round to nearest even (the default rounding mode) */
  unsigned v = (unsigned)r;                      /* the value in ulps of 2^q */
  if (q == -24) return sign | (unsigned short)v; /* subnormal (or the smallest normal, by carry) */
  if (v >= 2048) v >>= 1, q++;                   /* rounded up to the next binade */
  return sign | (unsigned short)(((unsigned)(q + 25) << 10) | (v & 0x3ff));
}

/* add_typed(n, l, r, o) in float, double or half (k: f, d, h): o[i] = l[i] + r[i] in that type */
CUresult fake_typed(char k, void **pp) {
  int n = *(int *)pp[0];
  for (int i = 0; i < n; i++)
    if (k == 'f') (*(float **)pp[3])[i] = (*(float **)pp[1])[i] + (*(float **)pp[2])[i];
    else if (k == 'd') (*(double **)pp[3])[i] = (*(double **)pp[1])[i] + (*(double **)pp[2])[i];
    else
      (*(unsigned short **)pp[3])[i] = f2h(h2f((*(unsigned short **)pp[1])[i]) + h2f((*(unsigned short **)pp[2])[i]));
  return 0;
}

/* ct_widen(a, out, n, t): n elements of elemtype t as doubles (tuner/gpu/gpu_kernels.cu) */
CUresult fake_widen(void **pp) {
  const void *a = *(void **)pp[0];
  double *o = *(double **)pp[1];
  unsigned long long n = *(unsigned long long *)pp[2];
  int t = *(int *)pp[3];
  for (unsigned long long i = 0; i < n; i++)
    o[i] = t == 0   ? ((const float *)a)[i]
           : t == 1 ? ((const double *)a)[i]
           : t == 2 ? ((const int *)a)[i]
           : t == 3 ? (double)((const long long *)a)[i]
           : t == 4 ? ((const unsigned *)a)[i]
           : t == 5 ? ((const unsigned char *)a)[i]
           : t == 6 ? h2f(((const unsigned short *)a)[i])
                    : bf2f(((const unsigned short *)a)[i]);
  return 0;
}

/* init_state(state, seed, n) and draw_state(out, state, n) of tests/spaces/init/fake_init.cu, over
 * the first T (threads) elements: init_state makes state[i] = seed + i; draw_state fails the launch
 * unless the state is what init_state made, advanced as a whole (state[i] - state[0] == i), then
 * copies it out and advances it by 1000. */
CUresult fake_state(int init, unsigned long long T, void **pp) {
  if (init) {
    float *state = *(float **)pp[0];
    long long sd = *(long long *)pp[1];
    int n = *(int *)pp[2];
    for (long long i = 0; i < n && (unsigned long long)i < T; i++) state[i] = (float)(sd + i);
    return 0;
  }
  float *out = *(float **)pp[0], *state = *(float **)pp[1];
  int n = *(int *)pp[2];
  for (int i = 0; i < n; i++)
    if (state[i] - state[0] != (float)i) {
      fprintf(stderr, "fake: draw_state: state[%d] = %g, state[0] = %g: not a state init_state made\n", i, state[i],
              state[0]);
      return CUDA_ERROR_INVALID_VALUE;
    }
  for (long long i = 0; i < n && (unsigned long long)i < T; i++) out[i] = state[i], state[i] += 1000.0f;
  return 0;
}
