/* cutune_transpose: the tuned production transpose — no cutune, NVRTC or Lua at run time.
 *
 *   out (cols x rows) = transpose of in (rows x cols), float32, row-major, on `stream`.
 *
 * The configuration is the one the header results/transpose.h (written by `cutune header`)
 * selects for the current device (name, then architecture, then the portable default) and the
 * nearest measured size; every shipped configuration is compiled by nvcc into the library
 * (cmake/CutuneKernels.cmake). Buffers must be at least 16-byte aligned (cudaMalloc's are). */
#ifndef CUTUNE_TRANSPOSE_API_H
#define CUTUNE_TRANSPOSE_API_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t cutune_transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream);

/* What cutune_transpose launches for this size on the current device: the shipped
 * configuration, its parameters as text ("TILE=64 PAD=0 ..."), the tuned shape it was matched
 * to (the header's rule for sizes: docs/HEADER.md, "Kernel selection"), the configuration's
 * time there as the header recorded it (ms; -1 where the entry is a choice over several GPUs)
 * and where the entry came from. Any pointer may be NULL. */
cudaError_t cutune_transpose_describe(int rows, int cols, int *config, char *params, int params_len,
                                      double *time_ms, long long *meas_rows, long long *meas_cols,
                                      const char **source);
/* Why: one line of text (len bytes at most) naming the configuration, the tuned shape it was
 * matched to, its share of the best there, and the tuned shapes the rule consulted. */
cudaError_t cutune_transpose_why(int rows, int cols, char *buf, int len);

#ifdef __cplusplus
}
#endif

#endif
