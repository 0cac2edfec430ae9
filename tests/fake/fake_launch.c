/* fake_launch: the fake libcuda.so.1's cuLaunchKernel (see fake_libcuda.c): every kernel the
 * fake resolves, emulated by name, the launch refused where a GPU would refuse it (more dynamic
 * shared memory than the kernel opted in to: cuFuncSetAttribute), the test hooks that act at a
 * launch, and the tensor maps (cuTensorMapEncodeTiled) that tmap_copy reads through. */
#include <cuda.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fake_kernels.h"
#include "fake_libcuda.h"

/* Dynamic shared memory over 48 KB needs the kernel's opt-in first, as on a GPU: the fake keeps
 * each function's (the kernel's name) and refuses a launch that asks for more. */
static const void *optin_fn[64];
static int optin_bytes[64], noptin;
static int optin_of(CUfunction f) {
  for (int i = 0; i < noptin; i++)
    if (optin_fn[i] == (const void *)f) return optin_bytes[i];
  return 48 * 1024;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return 0;
  int i = 0;
  while (i < noptin && optin_fn[i] != (const void *)f) i++;
  if (i == noptin && noptin < 64) noptin++;
  if (i < 64) optin_fn[i] = f, optin_bytes[i] = v;
  return 0;
}
/* csr_spmv(y, rows, cols, vals, x, nrows, ncols, nnz) of tests/spaces/data/fake_data.cu: y = A x for
 * the CSR matrix (rows, cols, vals). Offsets that are not CSR's (rows[0] = 0, never decreasing,
 * rows[nrows] = nnz) or a column outside 0..ncols-1 fault as a real kernel reading out of bounds
 * might: the seeded fill of rows (random, unsorted) is caught, data uploaded as given passes. */
static CUresult fake_csr(void **pp) {
  float *y = *(float **)pp[0];
  const int *rows = *(int **)pp[1], *cols = *(int **)pp[2];
  const float *vals = *(float **)pp[3], *x = *(float **)pp[4];
  int nrows = *(int *)pp[5], ncols = *(int *)pp[6], nnz = *(int *)pp[7];
  if (rows[0] != 0 || rows[nrows] != nnz) {
    fprintf(stderr, "fake: csr_spmv: rows[0] = %d, rows[%d] = %d (wanted 0 and nnz = %d)\n", rows[0], nrows,
            rows[nrows], nnz);
    return sticky = 1, (CUresult)700;
  }
  for (int i = 0; i < nrows; i++) {
    if (rows[i + 1] < rows[i]) {
      fprintf(stderr, "fake: csr_spmv: rows[%d] = %d after %d: not CSR offsets\n", i + 1, rows[i + 1], rows[i]);
      return sticky = 1, (CUresult)700;
    }
    float acc = 0;
    for (int j = rows[i]; j < rows[i + 1]; j++) {
      if (cols[j] < 0 || cols[j] >= ncols) {
        fprintf(stderr, "fake: csr_spmv: cols[%d] = %d outside 0..%d\n", j, cols[j], ncols - 1);
        return sticky = 1, (CUresult)700;
      }
      acc += vals[j] * x[cols[j]];
    }
    y[i] = acc;
  }
  return 0;
}

/* hgemm_fake(C, A, B, M, N, K, alpha, beta, V, Acopy) of tests/spaces/fake_hgemm.cu, on bfloat16
 * A and B: C = alpha*A*B + beta*C and Acopy = A. The reference sums in double; V = 0 sums in
 * float, 1 in float truncating every addition (a tensor core that does not round to nearest),
 * 2 drops the k16 step 16..31, 3 drops k = 5, 4 moves Acopy[7] by 8 bfloat16 ulps. Inputs that
 * are not bfloat16 values in [-1, 1] (a fill of the wrong type) fail the launch. */
static CUresult fake_hgemm(int ref, void **pp) {
  float *C = *(float **)pp[0];
  const unsigned short *A = *(unsigned short **)pp[1], *B = *(unsigned short **)pp[2];
  int M = *(int *)pp[3], N = *(int *)pp[4], K = *(int *)pp[5];
  float alpha = *(float *)pp[6], beta = *(float *)pp[7];
  int V = ref ? -1 : *(int *)pp[8];
  unsigned short *Ac = *(unsigned short **)pp[9];
  double mag = 0;
  for (long i = 0; i < (long)M * K; i++) {
    float a = bf2f(A[i]);
    if (!(fabsf(a) <= 1)) {
      fprintf(stderr, "fake: hgemm_fake: A[%ld] = %g is not a bfloat16 in [-1, 1]\n", i, a);
      return CUDA_ERROR_INVALID_VALUE;
    }
    mag += fabsf(a);
  }
  if (mag < 0.1 * M * K) {
    fprintf(stderr, "fake: hgemm_fake: A is not uniform in [-1, 1] (mean |a| %g)\n", mag / M / K);
    return CUDA_ERROR_INVALID_VALUE;
  }
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double s = 0;
      float f = 0;
      for (int k = 0; k < K; k++) {
        if ((V == 2 && k >= 16 && k < 32) || (V == 3 && k == 5)) continue;
        float p = bf2f(A[(long)m * K + k]) * bf2f(B[(long)k * N + n]);
        if (ref) s += (double)p;
        else if (V == 1) { /* round toward zero: the exact sum, then its float truncated */ double e = (double)f + p;
          float r = (float)e;
          if (fabs((double)r) > fabs(e)) r = nextafterf(r, 0.f);
          f = r;
        } else f += p;
      }
      float *c = &C[(long)m * N + n];
      *c = ref ? (float)(alpha * s + beta * (double)*c) : alpha * f + beta * *c;
    }
  for (long i = 0; i < (long)M * K; i++) Ac[i] = A[i];
  if (V == 4) Ac[7] = f2bf(bf2f(A[7]) * (1 + 8.0f / 128));
  return 0;
}

/* ---- tensor maps: a made-up encoding of what cuTensorMapEncodeTiled is given (the real one is
 * opaque), refused where the real driver documents a refusal; tmap_copy reads through one ---- */
typedef struct fake_tmap {
  unsigned magic, dtype, rank, swizzle;
  unsigned long long addr, dims[5], strides[4];
  unsigned box[5];
} fake_tmap;
#define FAKE_TMAP_MAGIC 0x50414d54u
CUresult cuTensorMapEncodeTiled(CUtensorMap *m, CUtensorMapDataType dt, cuuint32_t rank, void *addr,
                                const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                                const cuuint32_t *estr, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  static const unsigned es[] = {[CU_TENSOR_MAP_DATA_TYPE_UINT8] = 1,    [CU_TENSOR_MAP_DATA_TYPE_FLOAT16] = 2,
                                [CU_TENSOR_MAP_DATA_TYPE_BFLOAT16] = 2, [CU_TENSOR_MAP_DATA_TYPE_FLOAT32] = 4,
                                [CU_TENSOR_MAP_DATA_TYPE_INT32] = 4,    [CU_TENSOR_MAP_DATA_TYPE_UINT32] = 4,
                                [CU_TENSOR_MAP_DATA_TYPE_FLOAT64] = 8,  [CU_TENSOR_MAP_DATA_TYPE_INT64] = 8};
  (void)l2, (void)oob;
  unsigned span = sw == CU_TENSOR_MAP_SWIZZLE_128B  ? 128
                  : sw == CU_TENSOR_MAP_SWIZZLE_64B ? 64
                  : sw == CU_TENSOR_MAP_SWIZZLE_32B ? 32
                                                    : 0;
  if (((unsigned long long)m & 63) || rank < 1 || rank > 5 || (unsigned)dt >= sizeof es / sizeof es[0] || !es[dt] ||
      ((unsigned long long)addr & 15) || il != CU_TENSOR_MAP_INTERLEAVE_NONE)
    return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < rank; i++)
    if (!dims[i] || dims[i] > (1ull << 32) || !box[i] || box[i] > 256 || estr[i] != 1 ||
        (i + 1 < rank && strides[i] % 16) || (span && box[0] * es[dt] > span) || box[0] * es[dt] % 16)
      return CUDA_ERROR_INVALID_VALUE;
  fake_tmap t = {FAKE_TMAP_MAGIC, (unsigned)dt, rank, span, (unsigned long long)addr, {0}, {0}, {0}};
  for (unsigned i = 0; i < rank; i++) t.dims[i] = dims[i], t.box[i] = box[i];
  for (unsigned i = 0; i + 1 < rank; i++) t.strides[i] = strides[i];
  memset(m, 0, sizeof *m);
  memcpy(m, &t, sizeof t);
  return 0;
}
/* tmap_copy(out, in, map, M, N, BOX) of tests/spaces/fake_tmap.cu: out (M x N floats) read from
 * the buffer the map describes, through its dims and strides (a map that lies reads the wrong
 * elements); a map of 128 zero bytes (an optional one the driver refused) copies in directly; a
 * map whose box is not {BOX, 2} fails the launch, as does anything else in the bytes. */
static CUresult fake_tmap_copy(void **pp) {
  float *out = *(float **)pp[0];
  const float *in = *(float **)pp[1];
  const unsigned char *raw = pp[2];
  int M = *(int *)pp[3], N = *(int *)pp[4], box = *(int *)pp[5];
  fake_tmap t;
  memcpy(&t, raw, sizeof t);
  int zero = 1;
  for (int i = 0; i < 128; i++) zero &= raw[i] == 0;
  if (zero) {
    memcpy(out, in, sizeof(float) * M * N);
    return 0;
  }
  if (t.magic != FAKE_TMAP_MAGIC || t.rank != 2 || t.dtype != CU_TENSOR_MAP_DATA_TYPE_FLOAT32 ||
      t.box[0] != (unsigned)box || t.box[1] != 2) {
    fprintf(stderr, "fake: tmap_copy: not the map it was promised (magic %x rank %u box %u,%u, BOX %d)\n", t.magic,
            t.rank, t.box[0], t.box[1], box);
    return CUDA_ERROR_INVALID_VALUE;
  }
  const unsigned char *base = (const unsigned char *)(uintptr_t)t.addr;
  for (int r = 0; r < M; r++)
    for (int c = 0; c < N; c++)
      out[(long)r * N + c] = (unsigned long long)c < t.dims[0] && (unsigned long long)r < t.dims[1]
                                 ? *(const float *)(base + r * t.strides[0] + c * 4ull)
                                 : 0.f;
  return 0;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sm, CUstream s, void **pp, void **ex) {
  if (sticky) return 700;
  const char *n = (const char *)f;
  if (bx * by * bz > 1024) return CUDA_ERROR_INVALID_VALUE;
  static FILE *log; /* FAKE_CUDA_LAUNCH_LOG: every launch, "kernel threads-per-block" a line */
  static int log_open;
  if (!log_open++ && getenv("FAKE_CUDA_LAUNCH_LOG")) log = fopen(getenv("FAKE_CUDA_LAUNCH_LOG"), "a");
  if (log) fprintf(log, "%s %u\n", n, bx * by * bz), fflush(log);
  if ((int)sm > optin_of(f)) {
    fprintf(stderr, "fake: %s launched with %u bytes of dynamic shared memory without the opt-in\n", n, sm);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!strcmp(n, "ct_fill_f32") || !strcmp(n, "ct_fill_h16")) return 0; /* the cuBLAS baseline's inputs */
  if (!strcmp(n, "ct_empty")) { /* the floor of the isolated time: a launch's overhead only */
    clk += 0.003;
    return 0;
  }
  if (!strcmp(n, "ct_spin")) { /* the lead of a chunk: its argument in nanoseconds */
    clk += 1e-6 * (double)*(unsigned long long *)pp[0];
    return 0;
  }
  if (!strcmp(n, "ct_widen")) return fake_widen(pp);
  if (!strncmp(n, "ct_reduce_", 10)) { /* {sum, max, min, NaNs} */
    unsigned long long N = *(unsigned long long *)pp[1];
    double *o = *(double **)pp[2], sum = 0, mx = -INFINITY, mn = INFINITY, nan = 0;
    for (unsigned long long i = 0; i < N; i++) {
      double v;
      if (!strcmp(n, "ct_reduce_f32")) v = (*(float **)pp[0])[i];
      else if (!strcmp(n, "ct_reduce_f64")) v = (*(double **)pp[0])[i];
      else if (!strcmp(n, "ct_reduce_i32")) v = (*(int **)pp[0])[i];
      else v = (*(unsigned **)pp[0])[i];
      if (isnan(v)) {
        nan++;
        continue;
      }
      sum += v, mx = fmax(mx, v), mn = fmin(mn, v);
    }
    o[0] = sum, o[1] = mx, o[2] = mn, o[3] = nan;
    return 0;
  }
  if (!strcmp(n, "user_check")) {
    unsigned long long N = *(unsigned long long *)pp[2], *res = *(unsigned long long **)pp[3];
    float *a = *(float **)pp[0], *r = *(float **)pp[1];
    for (unsigned long long i = 0; i < N; i++)
      if (a[i] != 2 * r[i]) {
        res[0]++;
        if (i < res[1]) res[1] = i;
      }
    return 0;
  }
  if (!strncmp(n, "ct_cmpar_", 9)) { /* |a - r| <= atol + rtol |r| */
    unsigned long long N = *(unsigned long long *)pp[2], *res = *(unsigned long long **)pp[5];
    double atol = *(double *)pp[3], rtol = *(double *)pp[4];
    int bf = !strcmp(n, "ct_cmpar_bf16"), f64 = !strcmp(n, "ct_cmpar_f64"), f16 = !strcmp(n, "ct_cmpar_f16");
    float *a32 = *(float **)pp[0], *r32 = *(float **)pp[1];
    const double *a64 = *(double **)pp[0], *r64 = *(double **)pp[1];
    const unsigned short *a16 = *(unsigned short **)pp[0], *r16 = *(unsigned short **)pp[1];
    for (unsigned long long i = 0; i < N; i++) {
      double a = f64 ? a64[i] : bf ? bf2f(a16[i]) : f16 ? h2f(a16[i]) : a32[i];
      double r = f64 ? r64[i] : bf ? bf2f(r16[i]) : f16 ? h2f(r16[i]) : r32[i];
      if (!(a == r) && !(isnan(a) && isnan(r)) && !(fabs((double)a - r) <= atol + rtol * fabs(r))) {
        res[0]++;
        if (i < res[1]) res[1] = i;
      }
    }
    return 0;
  }
  if (!strncmp(n, "ct_cmp_", 7)) {
    unsigned long long N = *(unsigned long long *)pp[2];
    int bf = !strcmp(n, "ct_cmp_bf16"), tolk = !strcmp(n, "ct_cmp_f32") || bf;
    unsigned long long *res = *(unsigned long long **)pp[tolk ? 4 : 3];
    double tol = tolk ? *(double *)pp[3] : 0;
    if (!strcmp(n, "ct_cmp_b64")) { /* bitwise, 8-byte elements: a double compared exactly */
      const unsigned long long *a64 = *(unsigned long long **)pp[0], *r64 = *(unsigned long long **)pp[1];
      for (unsigned long long i = 0; i < N; i++)
        if (a64[i] != r64[i]) {
          res[0]++;
          if (i < res[1]) res[1] = i;
        }
      return 0;
    }
    if (!tolk && strcmp(n, "ct_cmp_b32")) {
      fprintf(stderr, "fake: unsupported %s\n", n);
      return 1;
    }
    unsigned *a = *(unsigned **)pp[0], *r = *(unsigned **)pp[1];
    const unsigned short *a16 = *(unsigned short **)pp[0], *r16 = *(unsigned short **)pp[1];
    if (a == r) { /* the isolated timing's read-only L2 flush: a buffer against itself, nothing to find */
      clk += N * (bf ? 2 : 4) / 3e12 * 1e3;
      return 0;
    }
    for (unsigned long long i = 0; i < N; i++) {
      int bad;
      if (tolk) {
        float x, y;
        if (bf) x = bf2f(a16[i]), y = bf2f(r16[i]);
        else memcpy(&x, &a[i], 4), memcpy(&y, &r[i], 4);
        bad = !(x == y) && !(isnan(x) && isnan(y)) && !(fabs((double)x - y) <= tol * fmax(1, fabs(y)));
      } else bad = a[i] != r[i];
      if (bad) {
        res[0]++;
        if (i < res[1]) res[1] = i;
      }
    }
    return 0;
  }
  if (!strncmp(n, "ct_", 3)) { /* a helper of gpu_kernels.cu this fake does not compute: never a silent pass */
    fprintf(stderr, "fake: helper kernel %s is not implemented by tests/fake (add it)\n", n);
    return 1;
  }
  static int launched; /* kernels (not helpers) launched by this process */
  const char *kill_once = getenv("FAKE_CUDA_KILL_ONCE_FILE");
  if (!launched++ && kill_once && kill_once[0] && unlink(kill_once) == 0) {
    fprintf(stderr, "fake: killed during setup (FAKE_CUDA_KILL_ONCE_FILE)\n");
    raise(SIGKILL);
  }
  if (!strcmp(n, "fake_any")) { /* FAKE_CUDA_ANY_KERNEL: a kernel the fake does not know does nothing */
    clk += 0.01 * (1 + 0.02 * rnd());
    return 0;
  }
  if (!strcmp(n, "hgemm") || !strcmp(n, "hgemm_ref")) { /* a made-up model: 500 TFLOP/s at 1024 threads per block */
    double flops = 2.0 * *(int *)pp[3] * *(int *)pp[4] * *(int *)pp[5], fill = gx < 132 ? gx / 132.0 : 1.0;
    clk += flops / (500e12 * fill * (0.5 + bx / 2048.0)) * 1e3 * (1 + 0.02 * rnd()) + 0.003;
    return 0;
  }
  if (!strcmp(n, "tmap_copy") || !strcmp(n, "tmap_ref")) { /* the reference copies in directly */
    clk += 0.01 * (1 + 0.02 * rnd());
    if (!dirty) return 0;
    dirty = 0;
    if (n[5] == 'r')
      return memcpy(*(float **)pp[0], *(float **)pp[1], sizeof(float) * *(int *)pp[3] * *(int *)pp[4]), 0;
    return fake_tmap_copy(pp);
  }
  if (!strncmp(n, "csr_spmv", 8)) { /* the data work once after each poison/restore, as below */
    clk += 0.01 * (1 + 0.02 * rnd());
    if (!dirty) return 0;
    dirty = 0;
    return fake_csr(pp);
  }
  if (!strncmp(n, "add_typed:", 10)) {
    clk += 0.01 * (1 + 0.02 * rnd());
    return fake_typed(n[10], pp);
  }
  if (!strcmp(n, "init_state") || !strcmp(n, "draw_state")) { /* every launch: the state advances */
    clk += 0.01 * (1 + 0.02 * rnd());
    return fake_state(n[0] == 'i', gx * bx, pp);
  }
  if (!strncmp(n, "hgemm_fake", 10)) { /* the data work once after each poison/restore, as below */
    clk += 0.01 * (1 + 0.02 * rnd());
    if (!dirty) return 0;
    dirty = 0;
    return fake_hgemm(!strcmp(n, "hgemm_fake_ref"), pp);
  }
  float *out = *(float **)pp[0], *in = *(float **)pp[1];
  unsigned N = *(unsigned *)pp[2];
  unsigned long long T = (unsigned long long)gx * bx;
  const char *fb = getenv("FAKE_CUDA_FAULT_BLOCK");
  if (!strcmp(n, "copy_fault") || (fb && atoi(fb) > 0 && bx * by * bz == (unsigned)atoi(fb))) {
    sticky = 1;
    return 0;
  }
  if (!strcmp(n, "copy_spin")) {
    spin = 1;
    return 0;
  }
  /* The data work is done once after each poison/restore (the check); timing launches only
   * advance the clock, so that timing loops cost no real time. */
  double base = (N * 8 / 4.0e12) * 1e3 * (1 + 0.02 * rnd());
  if (!strcmp(n, "copy_shaped")) { /* best at N / 256 threads per block (32 .. 1024): a shape-dependent winner */
    double want = N / 256.0 < 32 ? 32 : N / 256.0 > 1024 ? 1024 : N / 256.0, off = log2((double)bx / want);
    base = (N * 8 / 4.0e12) * 1e3 * (1 + 0.3 * off * off) * (1 + 0.002 * rnd()) + 0.002;
  }
  clk += base + 0.003;
  if (!strcmp(n, "copy_slow")) clk += 4.0;
  if (!strcmp(n, "copy_race")) clk += (N * 8 / 4.0e12) * 1e3 * (1024.0 / (bx * by * bz) - 1);
  if (!strcmp(n, "copy_race_long")) clk += 2.0 * 1024.0 / (bx * by * bz);
  if (!strcmp(n, "partial_sum") || !strcmp(n, "total_sum")) { /* in float[N], out float[grid]: every launch (a
                                                                   sequence's second pass reads the first's) */
    unsigned long long share = (N + gx - 1) / gx;
    for (unsigned b = 0; b < gx; b++) {
      double acc = 0;
      for (unsigned long long i = b * share; i < N && i < (b + 1) * share; i++) acc += in[i];
      out[b] = (float)acc;
    }
    return 0;
  }
  if (!dirty) return 0;
  dirty = 0;
  long tk = -1;
  if (!strncmp(n, "copy_tpl:", 9)) tk = strtol(n + 9, NULL, 10);
  for (unsigned long long i = 0; i < N && i < T; i++) {
    float v = in[i];
    if (tk >= 0) v *= (float)tk;
    if (!strcmp(n, "copy_const")) v += ((float *)c_add)[i % 16];
    if (!strcmp(n, "copy_wrong") && i == 12345) v += 1;
    if (!strcmp(n, "copy_rt") && i == 7 && *(int *)pp[3] != 2) v += 1;
    if (!strcmp(n, "copy_partial") && i == N - 1) continue;
    if (!strcmp(n, "scale_tiny")) v *= 1.0000020265579224f;
    if (!strcmp(n, "scale_big")) v *= 1.001f;
    if (!strcmp(n, "accumulate")) v += out[i];
    out[i] = v;
  }
  return 0;
}
