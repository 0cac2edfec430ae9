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
 * "NVRTC's side" below). Not a model of a GPU: a test double. fake_launch.c holds the launch (the
 * kernels' emulation, the opt-in for dynamic shared memory, tensor maps), fake_kernels.c the
 * kernels of the typed-buffer and init tests (add_typed, ct_widen, init_state, draw_state) and
 * the float conversions.
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
 *   FAKE_CUDA_REFUSE_FATBIN=1  cuModuleLoadData refuses a fatbin image (CUDA_ERROR_INVALID_IMAGE):
 *       the GPU worker's helper kernels then come from their PTX.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_libcuda.h"
double clk; /* simulated device time, ms */
int dirty;  /* inputs or outputs changed since the last emulated test kernel */
int sticky;
int spin;
static unsigned long long seed = 1;
double rnd(void) {
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
  static const unsigned char fatbin_magic[4] = {0x50, 0xed, 0x55, 0xba}; /* 0xba55ed50, little-endian */
  if (getenv("FAKE_CUDA_REFUSE_FATBIN") && img && !memcmp(img, fatbin_magic, 4)) return CUDA_ERROR_INVALID_IMAGE;
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
    "ct_spin",
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
unsigned char c_add[64 << 10];
static unsigned char c_small[16];
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
