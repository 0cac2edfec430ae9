/* gpu_worker_int: state shared by the two halves of the GPU worker process — gpu_worker.c
 * (process, device, problem setup) and gpu_worker_measure.c (load, check, timing). Private to
 * them; like them it includes cuda.h. The worker owns every device allocation and module. */
#ifndef CUTUNE_GPU_WORKER_INT_H
#define CUTUNE_GPU_WORKER_INT_H

#include "cuda_api.h"
#include "gpu.h"
#include "gpu_wire.h"

#define WK_MAX_CHUNK 256 /* timed samples enqueued between two host synchronisations */
#define WK_MODULES 8     /* loaded modules kept (gpu_worker_modules.c) */

typedef struct wk_arg {
  CUdeviceptr d;    /* what the kernel sees */
  CUdeviceptr orig; /* inout: the initial contents, restored before each run */
  CUdeviceptr ref;  /* output/inout: the reference kernel's result */
  size_t bytes;
  unsigned char scalar[8];
} wk_arg;

/* A loaded module and the image it was loaded from (its key: jobs of one cubin share it). */
typedef struct wk_module {
  CUmodule mod;
  unsigned char *image;
  size_t len;
  uint64_t sum;  /* a cheap checksum of image, to compare first */
  uint64_t used; /* LRU stamp */
} wk_module;

typedef struct worker {
  const cuda_api *cu;
  CUdevice dev;
  CUcontext ctx;
  CUstream stream;
  gpu_device_info info;
  nvml_dev *nv;
  int max_threads_sm, max_block[3], max_grid[3], smem_optin;
  CUdeviceptr scratch; /* 2 x L2 bytes, written before a launch to flush L2 */
  size_t scratch_bytes;
  CUdeviceptr cmp_res; /* {mismatches, first index} per output argument (16 bytes each, MAX_ARGS) */
  CUmodule helpers;
  CUfunction cmp_bits[4]; /* 1, 2, 4, 8-byte elements */
  CUfunction cmp_f32, cmp_f64, cmp_f16;
  CUfunction empty;     /* ct_empty: the floor of the isolated time */
  CUfunction fill_f32;  /* ct_fill_f32: uniform [-1, 1) floats (the cuBLAS baseline's inputs) */
  double iso_floor_ms;  /* median event time of ct_empty after a flush; NAN: not measured yet */
  CUevent ev[2 * WK_MAX_CHUNK + 2];
  wk_module mods[WK_MODULES];
  uint64_t mod_clock;
  double last_end; /* now_seconds() when the last job's GPU work ended (0: none yet) */
  double last_t1;  /* the last configuration's first estimate of a launch, ms (NAN: none this problem) */

  int have_problem;
  wire_setup setup;
  wk_arg arg[MAX_ARGS];
  void *params[MAX_ARGS];
  size_t working_set; /* bytes of all buffers: decides whether L2 is flushed */
} worker;

int wk_elsize(elemtype t);

/* The median of v[0..n-1] (scratch: n doubles; v is left as it is). */
double wk_median(const double *v, int n, double *scratch);

/* The context is unusable after r (a sticky error: the kernel faulted): the worker must exit. */
int wk_context_dead(worker *w, CUresult r);

/* Poison outputs (0xFF bytes: NaN for the float types) and restore inout buffers, on the stream. */
CUresult wk_prepare_run(worker *w);
CUresult wk_launch(worker *w, CUfunction f, const launch_geom *g);

/* Load, check and time one configuration (cubin: job->cubin_len bytes). Fills res; res->fatal set
 * when the worker must exit. */
void wk_measure(worker *w, const wire_job *job, const char *kernel, const void *cubin, wire_result *res);

/* The module of this image (gpu_worker_modules.c): one already loaded from the same bytes (then
 * *reused = 1), else loaded now, the least recently used of WK_MODULES unloaded to make room.
 * The worker owns it (wk_modules_free at exit). */
CUresult wk_module_get(worker *w, const void *image, size_t len, CUmodule *out, int *reused);
void wk_modules_free(worker *w);

/* The problem's cuBLAS SGEMM baseline (gpu_worker_cublas.c): the median ms of cuBLAS SGEMM of
 * shape mnk, strict FP32; NAN with why filled when cuBLAS is unavailable or fails. */
double wk_sgemm_ms(worker *w, const int64_t mnk[3], char *why, size_t whylen);

/* Energy per launch over a window of job->want_energy ms (gpu_worker_energy.c); after wk_time. */
void wk_energy(worker *w, CUfunction f, const wire_job *job, wire_result *res);

#endif
