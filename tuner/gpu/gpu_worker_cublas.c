/* gpu_worker_cublas: the cuBLAS baseline of a GEMM space, timed inside the GPU worker.
 *
 * A space that gives `cublas_sgemm = function(n) return M, N, K end` gets, once per problem,
 * the time of cuBLAS SGEMM of that shape on the same device and stream, so that the tables can
 * show each configuration's share of it ("% cuBLAS"), as a memory-bound space shows its share of
 * a device-to-device copy; `cublas_gemmex = function(n) return M, N, K, "bf16" end` (or "f16")
 * times cublasGemmEx instead: A and B of that type, C float32, CUBLAS_COMPUTE_32F (tensor cores,
 * float32 accumulation), CUBLAS_GEMM_DEFAULT, default math mode. The only unit that talks to cuBLAS. It is loaded with dlopen (no
 * link-time dependency: without cuBLAS the baseline is absent, nothing else changes) from
 * $CUTUNE_CUBLAS, else libcublas.so.13, .so.12, .so; the few entry points are declared here,
 * so no cuBLAS header is needed either.
 *
 * What is timed: row-major C (M x N) = A (M x K) * B (K x N) + C, all float32, in strict FP32
 * (CUBLAS_PEDANTIC_MATH: no TF32, no tensor cores), computed as the column-major C^T = B^T A^T
 * (no transposes); GemmEx the same with its input type. A and B hold uniform values in [-1, 1)
 * (as the spaces' inputs do: data with few toggling bits would draw less power and could clock
 * higher), rounded to the 16-bit type for GemmEx. Two warm-up calls, then the median of 9
 * calls, each between its own event pair, back to back. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_worker_int.h"

typedef int (*cublas_create_fn)(void **);
typedef int (*cublas_destroy_fn)(void *);
typedef int (*cublas_set_stream_fn)(void *, CUstream);
typedef int (*cublas_set_math_fn)(void *, int);
typedef int (*cublas_sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int, const float *, int,
                               const float *, float *, int);
typedef int (*cublas_gemmex_fn)(void *, int, int, int, int, int, const void *, const void *, int, int, const void *,
                                int, int, const void *, void *, int, int, int, int);
/* cublas_api.h and library_types.h (CUDA 12 and 13) */
enum {
  CUBLAS_OP_N_ = 0,
  CUBLAS_DEFAULT_MATH_ = 0,
  CUBLAS_PEDANTIC_MATH_ = 2,
  CUBLAS_COMPUTE_32F_ = 68,
  CUBLAS_GEMM_DEFAULT_ = -1,
  CUDA_R_32F_ = 0,
  CUDA_R_16F_ = 2,
  CUDA_R_16BF_ = 14
};

typedef struct cublas_api {
  void *lib;
  cublas_create_fn create;
  cublas_destroy_fn destroy;
  cublas_set_stream_fn set_stream;
  cublas_set_math_fn set_math;
  cublas_sgemm_fn sgemm;
  cublas_gemmex_fn gemmex; /* NULL in a cuBLAS without it (then only SGEMM baselines) */
} cublas_api;

/* Loaded once per worker process; NULL (why filled) when unavailable. */
static const cublas_api *cublas_load(char *why, size_t whylen) {
  static cublas_api api;
  static int tried;
  static char err[200];
  if (!tried) {
    tried = 1;
    const char *env = getenv("CUTUNE_CUBLAS");
    const char *names[] = {env && *env ? env : "libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    int n = env && *env ? 1 : 3;
    for (int i = 0; i < n && !api.lib; i++) api.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!api.lib)
      snprintf(err, sizeof err, "cuBLAS not found (%s): %s", env && *env ? env : "libcublas.so.13/.12/.so", dlerror());
    else {
      *(void **)&api.create = dlsym(api.lib, "cublasCreate_v2");
      *(void **)&api.destroy = dlsym(api.lib, "cublasDestroy_v2");
      *(void **)&api.set_stream = dlsym(api.lib, "cublasSetStream_v2");
      *(void **)&api.set_math = dlsym(api.lib, "cublasSetMathMode");
      *(void **)&api.sgemm = dlsym(api.lib, "cublasSgemm_v2");
      *(void **)&api.gemmex = dlsym(api.lib, "cublasGemmEx");
      if (!api.create || !api.destroy || !api.set_stream || !api.set_math || !api.sgemm) {
        snprintf(err, sizeof err, "the cuBLAS library loaded lacks cublasCreate_v2/cublasSgemm_v2/cublasSetMathMode");
        api.lib = NULL;
      }
    }
  }
  if (!api.lib) snprintf(why, whylen, "%s", err);
  return api.lib ? &api : NULL;
}

/* n uniform values in [-1, 1) of type t (float, or rounded to bfloat16 / half) */
static CUresult fill_unit(worker *w, CUdeviceptr p, unsigned long long n, unsigned seed, elemtype t) {
  unsigned long long blocks = (n + 255) / 256, cap = (unsigned long long)w->info.sms * 32;
  if (blocks > cap) blocks = cap;
  int bf16 = t == EL_BF16;
  void *pf[] = {&p, &n, &seed, &bf16}; /* ct_fill_f32 takes the first three */
  return w->cu->cuLaunchKernel(t == EL_F32 ? w->fill_f32 : w->fill_h16, (unsigned)blocks, 1, 1, 256, 1, 1, 0, w->stream,
                               pf, NULL);
}

/* One call of the baseline: C^T = B^T A^T + C^T, column-major, no transposes. */
static int gemm_call(const cublas_api *cb, void *h, elemtype t, int M, int N, int K, CUdeviceptr a, CUdeviceptr b,
                     CUdeviceptr c) {
  const float alpha = 1.0f, beta = 1.0f;
  if (t == EL_F32)
    return cb->sgemm(h, CUBLAS_OP_N_, CUBLAS_OP_N_, N, M, K, &alpha, (const float *)b, N, (const float *)a, K, &beta,
                     (float *)c, N);
  int ty = t == EL_BF16 ? CUDA_R_16BF_ : CUDA_R_16F_;
  return cb->gemmex(h, CUBLAS_OP_N_, CUBLAS_OP_N_, N, M, K, &alpha, (const void *)b, ty, N, (const void *)a, ty, K,
                    &beta, (void *)c, CUDA_R_32F_, N, CUBLAS_COMPUTE_32F_, CUBLAS_GEMM_DEFAULT_);
}

double wk_sgemm_ms(worker *w, const int64_t mnk[3], elemtype type, char *why, size_t whylen) {
  const cuda_api *cu = w->cu;
  why[0] = 0;
  const cublas_api *cb = cublas_load(why, whylen);
  if (!cb) return NAN;
  const char *fname = type == EL_F32 ? "cublasSgemm" : "cublasGemmEx";
  if (type != EL_F32 && !cb->gemmex) {
    snprintf(why, whylen, "the cuBLAS library loaded lacks cublasGemmEx");
    return NAN;
  }
  int M = (int)mnk[0], N = (int)mnk[1], K = (int)mnk[2];
  CUdeviceptr a = 0, b = 0, c = 0;
  void *h = NULL;
  double out = NAN;
  enum { WARM = 2, REPS = 9 };
  size_t es = type == EL_F32 ? 4 : 2;
  size_t sa = (size_t)M * K * es, sb = (size_t)K * N * es, sc = (size_t)M * N * 4;
  CUresult r = cu->cuMemAlloc(&a, sa);
  if (!r) r = cu->cuMemAlloc(&b, sb);
  if (!r) r = cu->cuMemAlloc(&c, sc);
  if (r) {
    snprintf(why, whylen, "allocating %zu MB for the cuBLAS baseline: %s", (sa + sb + sc) >> 20, cuda_errstr(r));
    goto done;
  }
  if ((r = fill_unit(w, a, sa / es, 1, type)) || (r = fill_unit(w, b, sb / es, 2, type)) ||
      (r = fill_unit(w, c, sc / 4, 3, EL_F32))) {
    snprintf(why, whylen, "filling the cuBLAS baseline's inputs: %s", cuda_errstr(r));
    goto done;
  }
  int st = cb->create(&h);
  if (!st) st = cb->set_stream(h, w->stream);
  if (!st) st = cb->set_math(h, type == EL_F32 ? CUBLAS_PEDANTIC_MATH_ : CUBLAS_DEFAULT_MATH_);
  if (st) {
    snprintf(why, whylen, "cuBLAS: cublasCreate/SetStream/SetMathMode returned status %d", st);
    goto done;
  }
  for (int i = 0; i < WARM && !st; i++) st = gemm_call(cb, h, type, M, N, K, a, b, c);
  for (int i = 0; i < REPS && !st && !r; i++) {
    if ((r = cu->cuEventRecord(w->ev[2 * i], w->stream))) break;
    st = gemm_call(cb, h, type, M, N, K, a, b, c);
    if (!st) r = cu->cuEventRecord(w->ev[2 * i + 1], w->stream);
  }
  if (!st && !r) r = cu->cuStreamSynchronize(w->stream);
  double ms[REPS];
  for (int i = 0; i < REPS && !st && !r; i++) {
    float t = 0;
    r = cu->cuEventElapsedTime(&t, w->ev[2 * i], w->ev[2 * i + 1]);
    ms[i] = t;
  }
  if (st) snprintf(why, whylen, "cuBLAS: %s returned status %d", fname, st);
  else if (r) snprintf(why, whylen, "timing the cuBLAS baseline: %s", cuda_errstr(r));
  else {
    double tmp[REPS];
    out = wk_median(ms, REPS, tmp);
  }
done:
  if (h) cb->destroy(h);
  cu->cuStreamSynchronize(w->stream);
  if (a) cu->cuMemFree(a);
  if (b) cu->cuMemFree(b);
  if (c) cu->cuMemFree(c);
  return out;
}
