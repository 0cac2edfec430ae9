/* fake_kernels: what fake_launch.c takes from fake_kernels.c (see there). */
#ifndef CUTUNE_FAKE_KERNELS_H
#define CUTUNE_FAKE_KERNELS_H

#include <cuda.h>

/* hidden: the library exports only the driver's (and cuBLAS's) entry points */
#pragma GCC visibility push(hidden)
float bf2f(unsigned short h); /* bfloat16 bits -> float */
unsigned short f2bf(float f); /* float -> bfloat16 bits, round to nearest even */
float h2f(unsigned short h);  /* IEEE half bits -> float */
unsigned short f2h(float f);  /* float -> IEEE half bits, round to nearest even */
/* add_typed(n, l, r, o) of tests/spaces/typed in float, double or half (k: f, d, h) */
CUresult fake_typed(char k, void **pp);
/* ct_widen(a, out, n, t): n elements of elemtype t as doubles */
CUresult fake_widen(void **pp);
/* init_state(state, seed, n) (init != 0) or draw_state(out, state, n) over the first T threads */
CUresult fake_state(int init, unsigned long long T, void **pp);
#pragma GCC visibility pop

#endif
