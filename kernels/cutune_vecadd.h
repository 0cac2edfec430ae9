/* cutune_vecadd: the tuned production vector add — no cutune, NVRTC or Lua at run time.
 *
 *   c[i] = a[i] + b[i] for 0 <= i < n, float32, on `stream` (c may be a or b: each element is
 *   read before it is written, by the same thread). Bitwise the same as a + b in float32.
 *
 * The configuration is the one the header results/vecadd.h (written by `cutune header`)
 * selects for the current device (name, then architecture, then the portable default) and the
 * nearest measured n; every shipped configuration is compiled by nvcc into the library
 * (cmake/CutuneKernels.cmake) from templates/vecadd.cu, which handles any n (a ragged tail of
 * n % VEC elements is done with scalar accesses; indices are 64-bit).
 *
 * a, b and c must be 16-byte aligned (cudaMalloc's are; else cudaErrorInvalidValue); n = 0 does
 * nothing, n < 0 is cudaErrorInvalidValue. */
#ifndef CUTUNE_VECADD_API_H
#define CUTUNE_VECADD_API_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t cutune_vecadd(float *c, const float *a, const float *b, long long n, cudaStream_t stream);

/* What cutune_vecadd launches for this n on the current device: the shipped configuration, its
 * parameters as text ("BLOCK=128 VEC=2 ..."), the tuned n it was matched to (docs/HEADER.md,
 * "Kernel selection"), the configuration's time there as the header recorded it (ms; -1 where
 * the entry is a choice over several GPUs) and where the entry came from. Any pointer may be NULL. */
cudaError_t cutune_vecadd_describe(long long n, int *config, char *params, int params_len, double *time_ms,
                                   long long *measured_n, const char **source);
/* Why: one line of text (len bytes at most) naming the configuration, the tuned n it was
 * matched to, its share of the best there, and the tuned sizes the rule consulted. */
cudaError_t cutune_vecadd_why(long long n, char *buf, int len);

#ifdef __cplusplus
}
#endif

#endif
