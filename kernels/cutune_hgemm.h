/* cutune_hgemm: the tuned production BF16 GEMM on tensor cores — no cutune, NVRTC or Lua at run time.
 *
 *   C (M x N, float32) = alpha * A (M x K) * B (K x N) + beta * C, A and B bfloat16, all
 *   row-major and dense (leading dimensions K, N and N), on `stream`. Every product is exact in
 *   float32 and accumulated in float32 by the tensor cores (wgmma on sm_90a, mma.sync on sm_80
 *   and later) in the tuned configuration's order; with split-K (small C, long K) the splits
 *   are added by float32 atomics, so the last bits can differ from one call to the next.
 *   beta = 0 does not read C (NaN there is overwritten).
 *
 * The configuration is the one the header results/hgemm.h (written by `cutune header
 * lua/hgemm_space.lua`) selects for the current device (name, then architecture, then the
 * portable default) and the nearest measured size; every shipped configuration is compiled by
 * nvcc into the library (cmake/CutuneKernels.cmake, kernels/build_nvcc.sh) from
 * templates/hgemm.cu, which is correct for every size. A wgmma configuration (WG=1) runs only
 * on a compute capability 9.0 GPU and only where the library holds its sm_90a code (build with
 * ARCHS "90a", e.g. "80;90a"); elsewhere a built-in mma.sync configuration runs instead (a GPU
 * older than sm_80: cudaErrorNotSupported). The entry's runtime parameters are used at its
 * measured size; at other sizes the block order stays the entry's and the K split is chosen for
 * the size (enough blocks to fill the GPU when C alone has too few tiles).
 *
 * Alignment: A, B and C must be 16-byte aligned (cudaMalloc's are; else cudaErrorInvalidValue).
 * The fast path also needs K % 8 == 0 (A's rows 16-byte aligned) and N % 8 == 0 (B's); other
 * sizes are correct too, their unaligned operand loaded in 8-, 4- or 2-byte pieces.
 * C must not overlap A or B. M, N or K = 0 is allowed (K = 0: C = beta*C), negative sizes are
 * cudaErrorInvalidValue. Split-K needs a few bytes of device memory per tile, kept per device
 * and stream (cudaMalloc'd at the first such call on a stream, zero between calls; at most 32
 * streams per device, beyond which calls run without split-K). Errors are returned, as the CUDA
 * runtime's; a launch error can also be seen later, as with any kernel. */
#ifndef CUTUNE_HGEMM_API_H
#define CUTUNE_HGEMM_API_H

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t cutune_hgemm(int M, int N, int K, float alpha, const __nv_bfloat16 *A, const __nv_bfloat16 *B, float beta,
                         float *C, cudaStream_t stream);

/* What cutune_hgemm launches for this size on the current device: the shipped configuration
 * (-1: the built-in mma.sync fallback), its parameters as text ("WG=1 BM=128 ..."), with the
 * GROUPM and SPLITK used for this size, the time the header recorded for it at its problem (ms;
 * -1 where the entry is a choice over several GPUs, or for the fallback), the measured problem
 * (M, N, K) and where the entry came from. Any pointer may be NULL. */
cudaError_t cutune_hgemm_describe(int M, int N, int K, int *config, char *params, int params_len, double *time_ms,
                                  long long measured[3], const char **source);
/* Why: one line of text (len bytes at most) naming the configuration, the tuned shape it was
 * matched to, its share of the best there, the tuned shapes the rule consulted, whether the
 * fallback runs instead, and the K split. (Not cutune_hgemm_why: results/hgemm.h's selector
 * has that name, as cutune_matmul_why is the SGEMM header's.) */
cudaError_t cutune_hgemm_why_size(int M, int N, int K, char *buf, int len);

#ifdef __cplusplus
}
#endif

#endif
