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
 * configuration, its parameters as text ("TILE=64 PAD=0 ..."), the time the header recorded
 * for it at its problem (ms; -1 where the entry is a choice over several GPUs), the measured
 * problem and where the entry came from. Any pointer may be NULL. */
cudaError_t cutune_transpose_describe(int rows, int cols, int *config, char *params, int params_len,
                                      double *time_ms, long long *meas_rows, long long *meas_cols,
                                      const char **source);

#ifdef __cplusplus
}
#endif

#endif
