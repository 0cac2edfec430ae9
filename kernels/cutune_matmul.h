/* cutune_matmul: the tuned production SGEMM — no cutune, NVRTC or Lua at run time.
 *
 *   C (M x N) = alpha * A (M x K) * B (K x N) + beta * C, float32, row-major, dense (leading
 *   dimensions K, N and N), on `stream`. Strict FP32: every product is an FFMA on float32
 *   operands (no tensor cores, no TF32), accumulated in float32 in a tile order of the tuned
 *   configuration (so the last bits differ from a sequential sum, as any blocked GEMM's do).
 *
 * The configuration is the one the header results/matmul.h (written by `cutune header`)
 * selects for the current device (name, then architecture, then the portable default) and the
 * nearest measured size; every shipped configuration is compiled by nvcc into the library
 * (cmake/CutuneKernels.cmake) from templates/matmul.cu, which is correct for every size: edge
 * tiles and leading dimensions that are not multiples of 4 take guarded paths.
 *
 * Workspace: a split-K configuration (SPLITK > 1) runs the slices of a tile as one thread block
 * cluster that adds its partial sums in distributed shared memory, in a fixed order: it needs
 * nothing. A stream-K configuration (STREAMK > 0: a persistent grid, tiles cut between blocks)
 * passes the partial tiles through a device buffer that cutune_sgemm allocates the first time a
 * call needs it, per device, and grows when a call needs more (cudaMalloc then, outside any graph
 * capture; a few MiB: two partial tiles per block of the grid). Calls that use it on different
 * streams run one after the other (the stream waits for the previous call's kernel); the sums are
 * still added in a fixed order, so every configuration gives the same bits on every call on a
 * given GPU. On a GPU without clusters (before sm_90) a split-K kernel computes each tile whole.
 *
 * C must not overlap A or B. A, B and C must be 16-byte aligned (cudaMalloc's are; else cudaErrorInvalidValue). C is read
 * even when beta = 0 (a NaN in C stays NaN there). M, N or K = 0 is allowed (K = 0: C = beta*C),
 * negative sizes are cudaErrorInvalidValue. Errors are returned, as the CUDA runtime's; a launch
 * error can also be seen later, as with any kernel. */
#ifndef CUTUNE_MATMUL_API_H
#define CUTUNE_MATMUL_API_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t cutune_sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C,
                         cudaStream_t stream);

/* What cutune_sgemm launches for this size on the current device: the shipped configuration,
 * its parameters as text ("BM=128 BN=256 ..."), the tuned shape (M, N, K) it was matched to (the
 * header's rule for sizes never tuned: docs/HEADER.md, "Kernel selection"), the
 * configuration's time there as the header recorded it (ms; -1 where the entry is a choice over
 * several GPUs) and where the entry came from. Any pointer may be NULL. */
cudaError_t cutune_sgemm_describe(int M, int N, int K, int *config, char *params, int params_len, double *time_ms,
                                  long long measured[3], const char **source);
/* Why: one line of text (len bytes at most) naming the configuration, the tuned shape it was
 * matched to, its share of the best there, and the tuned shapes the rule consulted. */
cudaError_t cutune_sgemm_why(int M, int N, int K, char *buf, int len);

#ifdef __cplusplus
}
#endif

#endif
