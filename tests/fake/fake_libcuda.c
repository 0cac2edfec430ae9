/* fake_libcuda: a stand-in libcuda.so.1 for machines without a GPU, so that the GPU worker's
 * control flow (setup, poisoning, comparison, faults, hangs, timing loop) runs in CI.
 * "Device" memory is host memory; kernels are emulated by name: the worker's ct_cmp_b32,
 * ct_cmp_f32 and ct_cmp_bf16, the test kernels of tests/test_gpu_fakedriver.c, and hgemm_fake
 * (tests/spaces/fake_hgemm.cu: a bfloat16 GEMM with planted errors). templates/hgemm.cu's hgemm
 * and hgemm_ref are no-ops, so that both agree (tests/cli_kernels_hgemm.sh makes a store of real
 * configurations, with made-up times, to build a header and the launcher from). copy_fault makes the
 * context sticky-dead (CUDA_ERROR_ILLEGAL_ADDRESS), copy_spin makes every sync hang. Events
 * read a simulated clock that each launch advances (~2 ms per 1M-element copy, 2% noise).
 * Only the entry points cutune resolves exist, plus what NVRTC 13 asks of the driver (see
 * "NVRTC's side" below). Not a model of a GPU: a test double. fake_kernels.c holds the kernels of
 * the typed-buffer and init tests (add_typed, ct_widen, init_state, draw_state) and the float
 * conversions.
 *
 * Kernels renamed cutune_b<i>_<name> (the members of a batched compile) are <name>.
 *
 * Test hooks (environment of the process that loads this library):
 *   FAKE_CUDA_KILL_ONCE_FILE=PATH  if PATH exists, the first kernel launch of the process that
 *       is not a helper (ct_*) kernel -- the reference run of a problem's setup -- removes it
 *       and kills the process with SIGKILL: a GPU worker killed from outside during setup,
 *       once across all processes.
 *   FAKE_CUDA_LOAD_DELAY_MS=N  each cuModuleLoadData sleeps N ms (paces a run so that a test
 *       can interrupt it part-way).
 *   FAKE_CUDA_FAULT_BLOCK=N  a launch of any emulated copy with N threads per block faults as
 *       copy_fault does.
 *   FAKE_CUDA_MEM_LIMIT=BYTES  cuMemAlloc fails (out of memory) where the bytes live would pass
 *       BYTES: a leak shows as a later allocation that fails.
 *   FAKE_CUDA_CTX_FAIL=abort|error  the context (cuDevicePrimaryCtxRetain, after the worker's
 *       IDENT) aborts the process, or fails with CUDA_ERROR_OUT_OF_MEMORY.
 *   FAKE_CUDA_ANY_KERNEL=1  a kernel name the fake does not know resolves to a no-op kernel (each
 *       launch advances the clock 10 us, touches no memory), and any __constant__ / __device__
 *       name to the 64 KiB table of c_add: a space over real kernels (Kernel Tuner's examples)
 *       runs its argument setup, symbols, launches and checks through the fake, every output
 *       left as the check's poison or zero in both the configuration and the reference.
 *   FAKE_CUDA_CTX_WAIT=TEXT  the context waits until the file $CUTUNE_TRACE holds TEXT (a line
 *       another process marks), 60 s at most, after which it fails (CUDA_ERROR_NOT_READY):
 *       a test of what overlaps the worker's start never depends on how long a step takes.
 *
 * Devices: one "Fake H200" unless CUTUNE_FAKE_DEVICES names several, comma-separated, e.g.
 * "NVIDIA H200,NVIDIA H200,NVIDIA A100-SXM4-80GB": one device per name, compute capability
 * 8.0 for a name with A100 in it (9.0 otherwise), a UUID of its own per ordinal. */
#include <cuda.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fake_kernels.h"
static double clk; /* simulated device time, ms */
static int dirty;  /* inputs or outputs changed since the last emulated test kernel */
static int sticky;
static int spin;
static unsigned long long seed = 1;
static double rnd(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (seed >> 11) * (1.0 / 9007199254740992.0);
}
CUresult cuInit(unsigned f) { return 0; }

/* ---- NVRTC's side ----
 * NVRTC 13 dlopens libcuda.so.1 on its first nvrtcCompileProgram in a process, resolves
 * cuInit and cuGetExportTable (found with gdb on dlsym: those two only), calls cuInit(0) and
 * asks for the driver's private export tables. A library without cuGetExportTable crashes it
 * (SIGSEGV in nvrtcCompileProgram); NOT_SUPPORTED, as where no driver is installed, makes it
 * compile without the driver. So every compile worker, and the coordinator when it compiles
 * the reference kernel, loads this library too. */
CUresult cuGetExportTable(const void **table, const CUuuid *id) {
  if (table) *table = NULL;
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return 0;
}
CUresult cuGetErrorName(CUresult r, const char **s) {
  *s = r == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_X";
  return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = "fake";
  return 0;
}
#define FAKE_MAX_DEVICES 16
static char dev_names[FAKE_MAX_DEVICES][128];
static int ndev = -1;
static void devices_read(void) {
  if (ndev >= 0) return;
  const char *e = getenv("CUTUNE_FAKE_DEVICES");
  ndev = 0;
  if (e && !strcmp(e, "none")) return; /* a driver without devices */
  if (!e || !*e) {
    snprintf(dev_names[ndev++], sizeof dev_names[0], "Fake H200");
    return;
  }
  while (*e && ndev < FAKE_MAX_DEVICES) {
    size_t n = strcspn(e, ",");
    snprintf(dev_names[ndev++], sizeof dev_names[0], "%.*s", (int)n, e);
    e += n + (e[n] == ',');
  }
}
static int dev_is_a100(CUdevice d) { return d >= 0 && d < ndev && strstr(dev_names[d], "A100") != NULL; }
CUresult cuDeviceGetCount(int *n) {
  devices_read();
  *n = ndev;
  return 0;
}
CUresult cuDeviceGet(CUdevice *d, int o) {
  devices_read();
  if (o < 0 || o >= ndev) return CUDA_ERROR_INVALID_DEVICE;
  *d = o;
  return 0;
}
CUresult cuDeviceGetName(char *n, int l, CUdevice d) {
  devices_read();
  snprintf(n, l, "%s", d >= 0 && d < ndev ? dev_names[d] : "?");
  return 0;
}
CUresult cuDeviceGetUuid(CUuuid *u, CUdevice d) {
  memset(u, 0xab, 16);
  u->bytes[15] = (char)(0xab + d); /* ordinal 0 keeps the all-0xab UUID the tests expect */
  return 0;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = dev_is_a100(d) ? 8 : 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = dev_is_a100(d) ? 108 : 132; break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 50 << 20; break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *v = 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *v = 64; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *v = 65535; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
  default: *v = 0;
  }
  return 0;
}
CUresult cuDeviceTotalMem(size_t *b, CUdevice d) {
  *b = (size_t)141 << 30;
  return 0;
}
CUresult cuDeviceGetPCIBusId(char *p, int l, CUdevice d) {
  snprintf(p, l, "0000:19:00.0");
  return 0;
}
/* Whether the file at path holds text (read whole; a trace is small). */
static int file_holds(const char *path, const char *text) {
  FILE *f = path ? fopen(path, "r") : NULL;
  if (!f) return 0;
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return strstr(buf, text) != NULL;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  const char *fail = getenv("FAKE_CUDA_CTX_FAIL"), *wait = getenv("FAKE_CUDA_CTX_WAIT");
  if (fail && !strcmp(fail, "abort")) {
    fprintf(stderr, "fake: context creation aborted (FAKE_CUDA_CTX_FAIL)\n");
    abort();
  }
  if (fail && fail[0]) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  if (wait && wait[0]) {
    int k = 0;
    while (!file_holds(getenv("CUTUNE_TRACE"), wait) && k++ < 6000) usleep(10000);
    if (k > 6000) {
      fprintf(stderr, "fake: '%s' never appeared in $CUTUNE_TRACE (FAKE_CUDA_CTX_WAIT)\n", wait);
      return 600; /* CUDA_ERROR_NOT_READY */
    }
  }
  *c = (CUcontext)1;
  return 0;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice d) { return 0; }
CUresult cuDevicePrimaryCtxSetFlags(CUdevice d, unsigned f) { return 0; }
CUresult cuCtxSetCurrent(CUcontext c) { return 0; }
static CUresult syncit(void) {
  if (spin)
    for (;;) pause();
  return sticky ? 700 : 0;
}
CUresult cuCtxSynchronize(void) { return syncit(); }
/* Each allocation carries its size in 16 bytes before it (the pointer stays 16-byte aligned),
 * so that FAKE_CUDA_MEM_LIMIT can count the bytes live. */
static size_t live_bytes;
CUresult cuMemAlloc(CUdeviceptr *p, size_t b) {
  if (sticky) return 700;
  const char *lim = getenv("FAKE_CUDA_MEM_LIMIT");
  if (lim && live_bytes + b > (size_t)strtoull(lim, NULL, 10)) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  unsigned char *m = malloc(b + 16);
  if (!m) return 2;
  memcpy(m, &b, sizeof b);
  live_bytes += b;
  *p = (CUdeviceptr)(m + 16);
  return 0;
}
CUresult cuMemFree(CUdeviceptr p) {
  if (!p) return 0;
  unsigned char *m = (unsigned char *)p - 16;
  size_t b;
  memcpy(&b, m, sizeof b);
  live_bytes -= b;
  free(m);
  return 0;
}
/* page-locked host memory: plain memory here */
CUresult cuMemAllocHost(void **p, size_t b) {
  if (sticky) return 700;
  return (*p = malloc(b ? b : 1)) ? 0 : 2;
}
CUresult cuMemFreeHost(void *p) {
  free(p);
  return 0;
}
CUresult cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) {
  memcpy((void *)d, s, n);
  return sticky ? 700 : 0;
}
CUresult cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n) {
  memcpy(d, (void *)s, n);
  return sticky ? 700 : 0;
}
CUresult cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) {
  memcpy((void *)d, (void *)s, n);
  return sticky ? 700 : 0;
}
CUresult cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  if (n < (256u << 20)) memcpy /* the copy-bandwidth buffers: no data needed */ ((void *)d, (void *)s, n);
  clk += n * 2 / 4.3e12 * 1e3; /* 4300 GB/s */
  dirty = 1;
  return sticky ? 700 : 0;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  memset((void *)d, v, n);
  dirty = 1;
  return sticky ? 700 : 0;
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s) {
  unsigned *p = (unsigned *)d;
  if (n < 1000)
    for (size_t i = 0; i < n; i++) p[i] = v;
  clk += n * 4 / 3e12 * 1e3;
  return sticky ? 700 : 0;
}
CUresult cuModuleLoadData(CUmodule *m, const void *img) {
  const char *delay = getenv("FAKE_CUDA_LOAD_DELAY_MS");
  if (delay && atoi(delay) > 0) usleep((useconds_t)atoi(delay) * 1000);
  *m = (CUmodule)malloc(1);
  return sticky ? 700 : 0;
}
CUresult cuModuleUnload(CUmodule m) {
  free(m);
  return 0;
}
static const char *known[] = {
    "ct_cmp_b8",
    "tmap_copy",
    "tmap_ref",
    "ct_cmp_b16",
    "ct_cmp_b32",
    "ct_cmp_b64",
    "ct_cmp_f32",
    "ct_cmp_f64",
    "ct_cmp_f16",
    "ct_empty",
    "ct_fill_f32",
    "ct_fill_h16",
    "ct_cmp_bf16",
    "ct_cmpar_bf16",
    "hgemm_fake", /* tests/spaces/fake_hgemm.cu: see fake_hgemm() */
    "hgemm_fake_ref",
    "hgemm", /* templates/hgemm.cu: no-ops (see the top) */
    "hgemm_ref",
    "ct_cmpar_f32",
    "ct_cmpar_f64",
    "ct_cmpar_f16",
    "ct_reduce_f32",
    "ct_reduce_f64",
    "ct_reduce_i32",
    "ct_reduce_u32",
    "copy_const",  /* out[i] = in[i] + c_add[i % 16]: a __constant__ filled per module */
    "copy_tpl",    /* copy_tpl<K> (C++, any namespace): out[i] = K * in[i] */
    "partial_sum", /* out[b] = the sum of block b's share of in: a reduction's first pass */
    "total_sum",   /* out[0] = the sum of in (the reference of partial_sum) */
    "user_check",  /* a space's check kernel: mismatch where out != 2 ref */
    "copy_ok",
    "copy_slow", /* copy_ok taking 4 ms per launch (a long GEMM's timing) */
    "copy_wrong",
    "copy_race_long", /* copy_race at 2 ms per launch at B = 1024 (cli_fake_race_early.sh) */
    "copy_partial",
    "copy_fault",
    "copy_spin",
    "copy_max64",
    "scale_tiny",
    "scale_big",
    "accumulate",
    "copy_ref",    /* a reference kernel for cutune runs (tests/cli_fake_run.sh) */
    "copy_shaped", /* copy_ok whose time depends on the block size and n: the
                                                best block grows with n (tests/cli_shapes_run.sh) */
    "copy_rt",     /* copy_ok whose 4th argument (int) must be 2: else element 7 is off
                                             (runtime parameters, tests/cli_fake_runtime.sh) */
    "copy_race",   /* copy_ok taking 1024/B times as long at block B: slow by
                                              design below 1024 threads (racing, tests/cli_fake_race.sh) */
    "csr_spmv",    /* y = A x for A in CSR; rows that are not CSR offsets fault (see
                                                fake_csr) */
    "csr_spmv_ref",
    "init_state", /* state[i] = seed + i: a space's init launch (tests/spaces/init/fake_init.cu) */
    "draw_state", /* out[i] = state[i], state[i] += 1000; fails on a state init_state did not make */
    "ct_widen",   /* a typed output as doubles */
    "add_typed",  /* add_typed(n, T *l, T *r, T *o) of tests/spaces/typed: T from the mangled name */
    0};
/* A C++ kernel's lowered name, _Z[N]<len><name>...[I Li<k>E ...]: its last name and its first
 * integer template argument (-1 without one). The fake knows its kernels by their plain names. */
static int demangle(const char *m, char *base, size_t n, long *targ) {
  *targ = -1;
  if (strncmp(m, "_Z", 2)) return 0;
  const char *p = m + 2;
  if (*p == 'N') p++;
  while (*p >= '0' && *p <= '9') {
    char *end;
    long len = strtol(p, &end, 10);
    snprintf(base, n, "%.*s", (int)len, end);
    p = end + len;
  }
  if (*p == 'I' && p[1] == 'L' && p[2] == 'i') *targ = strtol(p + 3, NULL, 10);
  return 1;
}
static int any_kernel(void) {
  const char *v = getenv("FAKE_CUDA_ANY_KERNEL");
  return v && !strcmp(v, "1");
}
static char instances[64][80]; /* "copy_tpl:3": a template kernel's instance as a CUfunction */
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  const char *orig = name;
  char base[128];
  long targ;
  if (demangle(name, base, sizeof base, &targ)) name = base;
  /* a member of a batched compile (compile.h): cutune_b<i>_<kernel> (a C++ one's last name, in
   * namespace cutune_b<i>) is that kernel */
  if (!strncmp(name, "cutune_b", 8) && name[8] >= '0' && name[8] <= '9') {
    const char *p = name + 8;
    while (*p >= '0' && *p <= '9') p++;
    if (*p == '_') name = p + 1;
  }
  if (!strcmp(name, "add_typed")) { /* _Z9add_typediPfS_S_, ...iPdS_S_, ...iP6__halfS0_S0_: T is f, d or h */
    const char *t = strstr(orig, "iP");
    char k = !t ? '?' : t[2] == '6' ? 'h' : t[2];
    static char inst[3][16];
    int slot = k == 'f' ? 0 : k == 'd' ? 1 : 2;
    if (k != 'f' && k != 'd' && k != 'h') return CUDA_ERROR_NOT_FOUND;
    snprintf(inst[slot], sizeof inst[0], "add_typed:%c", k);
    *f = (CUfunction)inst[slot];
    return 0;
  }
  for (int i = 0; known[i]; i++)
    if (!strcmp(known[i], name)) {
      *f = (CUfunction)known[i];
      if (targ >= 0) {
        static int n;
        char *inst = instances[n++ % 64];
        snprintf(inst, sizeof instances[0], "%s:%ld", known[i], targ);
        *f = (CUfunction)inst;
      }
      return 0;
    }
  if (any_kernel()) {
    *f = (CUfunction) "fake_any";
    return 0;
  }
  return CUDA_ERROR_NOT_FOUND;
}
/* __constant__ / __device__ variables: any name starting "c_" exists (64 KiB), "c_small" holds 16 bytes;
 * the values live in one table shared by every module (what copy_const reads). */
static unsigned char c_add[64 << 10], c_small[16];
CUresult cuModuleGetGlobal(CUdeviceptr *p, size_t *bytes, CUmodule m, const char *name) {
  if (!strcmp(name, "c_small")) {
    *p = (CUdeviceptr)c_small;
    *bytes = sizeof c_small;
    return 0;
  }
  if (strncmp(name, "c_", 2) && strncmp(name, "_ZN", 3) && !any_kernel()) return CUDA_ERROR_NOT_FOUND;
  *p = (CUdeviceptr)c_add;
  *bytes = sizeof c_add;
  return 0;
}
CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) {
  const char *n = (const char *)f;
  if (a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) *v = strcmp(n, "copy_max64") ? 1024 : 64;
  else if (a == CU_FUNC_ATTRIBUTE_NUM_REGS) *v = 10;
  else *v = 0;
  return 0;
}
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
  if ((int)sm > optin_of(f)) {
    fprintf(stderr, "fake: %s launched with %u bytes of dynamic shared memory without the opt-in\n", n, sm);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!strcmp(n, "ct_fill_f32") || !strcmp(n, "ct_fill_h16")) return 0; /* the cuBLAS baseline's inputs */
  if (!strcmp(n, "ct_empty")) { /* the floor of the isolated time: a launch's overhead only */
    clk += 0.003;
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
CUresult cuStreamCreate(CUstream *s, unsigned f) {
  *s = (CUstream)1;
  return 0;
}
CUresult cuStreamDestroy(CUstream s) { return 0; }
CUresult cuStreamSynchronize(CUstream s) { return syncit(); }
CUresult cuEventCreate(CUevent *e, unsigned f) {
  *e = (CUevent)calloc(1, sizeof(double));
  return 0;
}
CUresult cuEventRecord(CUevent e, CUstream s) {
  *(double *)e = clk;
  return sticky ? 700 : 0;
}
CUresult cuEventSynchronize(CUevent e) { return syncit(); }
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) {
  *ms = (float)(*(double *)b - *(double *)a);
  return 0;
}
CUresult cuEventDestroy(CUevent e) {
  free(e);
  return 0;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int bs, size_t sm) {
  *n = 2048 / bs > 32 ? 32 : 2048 / bs;
  return 0;
}

/* A fake cuBLAS, in the same library: `CUTUNE_CUBLAS=<this file>` makes the worker's dlopen of
 * cuBLAS find these (tests/cli_fake_cublas.sh). SGEMM advances the clock as a 50 TFLOP/s GPU
 * would and GemmEx as an 800 TFLOP/s one; SGEMM is refused unless the math mode is
 * CUBLAS_PEDANTIC_MATH (2), so the test sees strict FP32, and GemmEx unless it is the default (0)
 * with 16-bit inputs (CUDA_R_16BF 14 or CUDA_R_16F 2), a float32 C (0) and CUBLAS_COMPUTE_32F (68). */
static int math_mode = -1;
int cublasCreate_v2(void **h) {
  *h = (void *)1;
  return getenv("FAKE_CUBLAS_CREATE_FAILS") ? 1 : 0;
}
int cublasDestroy_v2(void *h) { return 0; }
int cublasSetStream_v2(void *h, CUstream s) { return 0; }
int cublasSetMathMode(void *h, int mode) {
  math_mode = mode;
  return mode == 2 || mode == 0 ? 0 : 7;
}
int cublasSgemm_v2(void *h, int ta, int tb, int m, int n, int k, const float *alpha, const float *a, int lda,
                   const float *b, int ldb, const float *beta, float *c, int ldc) {
  if (ta || tb || lda < 1 || ldb < 1 || ldc < m || math_mode != 2) return 7;
  clk += 2.0 * m * n * k / 50e12 * 1e3;
  return 0;
}
int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *alpha, const void *a, int at, int lda,
                 const void *b, int bt, int ldb, const void *beta, void *c, int ct, int ldc, int compute, int algo) {
  if (ta || tb || lda < 1 || ldb < 1 || ldc < m || math_mode != 0) return 7;
  if ((at != 14 && at != 2) || bt != at || ct != 0 || compute != 68) return 7;
  clk += 2.0 * m * n * k / 800e12 * 1e3;
  return 0;
}
