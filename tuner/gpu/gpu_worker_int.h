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
  CUdeviceptr refd; /* typed by the configuration (argspec.typed): the reference's result as doubles */
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

/* One problem the worker holds (a setup's slot, gpu.h GPU_PROBLEMS): its arguments on the device
 * with the reference's outputs, its symbols and check kernel, and the best time it measured
 * there. Jobs name the slot they run on; w->p is it while a job (or a setup) runs. */
typedef struct wk_prob {
  int have_problem;
  wire_setup setup;
  wk_arg arg[MAX_ARGS];
  void *params[MAX_ARGS];
  size_t working_set;                  /* bytes of all buffers: decides whether L2 is flushed */
  unsigned char *symdata[MAX_SYMBOLS]; /* the symbols' bytes for this problem (gpu_worker_symbols.c) */
  uint64_t ref_key;   /* the key of the per-configuration reference now in the arg[].ref copies; 0 none */
  CUmodule check_mod; /* the user's check kernel (gpu_worker_check.c), for this problem */
  CUfunction check_f;
  double best_full; /* the best median this worker timed in full on the problem, ms (NAN: none yet) */
  int32_t cur_type[MAX_ARGS]; /* typed inputs and inouts: the type their contents (and restore copy) are in */
  CUdeviceptr wide;           /* typed outputs: one widened to doubles for the check (the largest's size) */
} wk_prob;

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
  CUfunction cmp_f32, cmp_f64, cmp_f16, cmp_bf16;
  CUfunction empty;    /* ct_empty: the floor of the isolated time */
  CUfunction spin;     /* ct_spin: the lead of a chunk of a long kernel's timed launches */
  CUfunction fill_f32; /* ct_fill_f32: uniform [-1, 1) floats (the cuBLAS baseline's inputs) */
  CUfunction fill_h16; /* ct_fill_h16: the same rounded to bfloat16 or half (cublas_gemmex) */
  CUfunction cmpar_f32, cmpar_f64, cmpar_f16, cmpar_bf16;    /* |a - r| <= atol + rtol |r| */
  CUfunction reduce_f32, reduce_f64, reduce_i32, reduce_u32; /* sum, max, min, NaNs of a buffer */
  CUdeviceptr red_res; /* 8 doubles: the reductions of an output and of its reference */
  CUfunction widen;    /* ct_widen: a typed output as doubles */
  int32_t jtype[MAX_ARGS];                 /* this job's type of each typed buffer (gpu_worker_types.c) */
  double jatol[MAX_ARGS], jrtol[MAX_ARGS]; /* ... and its check's bounds in that type */
  double iso_floor_ms; /* median event time of ct_empty after a flush; NAN: not measured yet */
  CUevent ev[2 * WK_MAX_CHUNK + 2];
  wk_module mods[WK_MODULES];
  uint64_t mod_clock;
  double last_end;         /* now_seconds() when the last job's GPU work ended (0: none yet) */
  int64_t count[MAX_ARGS]; /* this job's element counts of buffers sized per configuration (0: the allocation's) */
  void **launch_params;    /* what wk_launch passes (NULL: p->params, every argument in order) */
  void *ref_params[MAX_ARGS];
  /* the problems held (gpu_wire.h: a setup's slot), and the one the current job runs on */
  wk_prob probs[GPU_PROBLEMS];
  wk_prob *p;
  /* a job's launch sequence (gpu_worker_launches.c): wk_launch of seq_main runs all of it */
  int nseq, nseq_mod;
  CUfunction seq_main, seq_f[MAX_LAUNCHES];
  launch_geom seq_g[MAX_LAUNCHES];
  void *seq_params[MAX_LAUNCHES][MAX_ARGS];
  CUmodule seq_mod[MAX_LAUNCHES];
} worker;

int wk_elsize(elemtype t);

/* The median of v[0..n-1] (scratch: n doubles; v is left as it is). */
double wk_median(const double *v, int n, double *scratch);

/* The context is unusable after r (a sticky error: the kernel faulted): the worker must exit. */
int wk_context_dead(worker *w, CUresult r);

/* Poison outputs (0xFF bytes: NaN for the float types) and restore inout buffers, on the stream. */
CUresult wk_prepare_run(worker *w);
CUresult wk_launch(worker *w, CUfunction f, const launch_geom *g);
/* Dynamic shared memory beyond the default 48 KB needs the kernel's opt-in before its launch:
 * given where g asks for more, a no-op otherwise. */
CUresult wk_smem_optin(worker *w, CUfunction f, const launch_geom *g);

/* Elements [start, start+n) of a buffer's seeded fill (gpu_worker_fill.c): argument (or symbol) index
 * `stream` of the problem's seed, as the buffers' own fill draws them. */
void wk_fill_host(const argspec *a, uint64_t seed, int stream, int64_t n, unsigned char *out);

/* gpu_worker_fill.c: argument i's initial contents as a says: zeros, the setup's data at data, or
 * the seeded fill in a's element type (count elements); float to IEEE half and to bfloat16 bits,
 * rounded to nearest even. */
int wk_upload_arg(worker *w, int i, const argspec *a, uint64_t seed, const char *data, cterr *err);
uint16_t wk_f2h(float f);
uint16_t wk_f2bf(float f);

/* gpu_worker_types.c: buffers typed by the configuration (argspec.typed). wk_types_apply: the job's
 * types (wire_job.types) and bounds for the check, its inputs and inouts filled again where their
 * contents are in another type; -1 with res filled. wk_widen: n elements of type t at src as doubles
 * at dst, on the stream (synchronised). */
int wk_types_apply(worker *w, const wire_job *job, wire_result *res);
CUresult wk_widen(worker *w, CUdeviceptr src, elemtype t, CUdeviceptr dst, unsigned long long n);

/* gpu_worker_symbols.c: the problem's symbols made on the host (from the setup frame's data
 * after its cubin: data, len), and filled into a loaded module (required: a symbol the module
 * lacks is an error with msg filled; else skipped). */
int wk_symbols_setup(worker *w, const char *data, size_t len, cterr *err);
int wk_symbols_fill(worker *w, CUmodule mod, int required, char *msg, size_t len);
void wk_symbols_free(worker *w);

/* gpu_worker_check.c: compare every checked output with its reference copy (element by element
 * within bounds, or a reduction of each); 0 all pass, 1 res says which failed, -1 CUDA error. The
 * per-configuration reference: run from mod when job->ref_kernel is set and its key differs from
 * the last run's (0, or -1 with res filled). */
int wk_compare(worker *w, wire_result *res);
int wk_reference_in(worker *w, CUmodule mod, const wire_job *job, wire_result *res);
/* A CUDA error while running the configuration: a fault when the context died (res filled). */
void wk_fail_run(worker *w, wire_result *res, CUresult r, const char *what);
void wk_fail(wire_result *res, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note on a record that stays ok (why it has no energy figure, say): added to res->message
 * after a "; ", so that one note does not hide another. */
void wk_note(wire_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* gpu_worker_launches.c: the parameter array of the arguments idx[0..n) into out; a job's launch
 * sequence set up from its module mod (the job's first program, whose kernel is f) and the rest
 * of its bundle cubin (each launch's limits checked: res says which is over; -1), launched whole
 * (wk_launch of f does it), and released. */
/* gpu_worker_tmaps.c: ct.tensormap arguments. The 128 bytes argument i passes (64-byte aligned);
 * the job's tensor maps encoded over their buffers (cuTensorMapEncodeTiled), -1 with msg. */
unsigned char *wk_tmap_bytes(int i);
int wk_tmaps_encode(worker *w, const wire_job *job, char *msg, size_t len);

void wk_params_map(worker *w, int n, const int8_t *idx, void **out);
int wk_seq_setup(worker *w, CUmodule mod, CUfunction f, const wire_job *job, const void *cubin, wire_result *res);
CUresult wk_seq_launch(worker *w);
void wk_seq_release(worker *w);

/* gpu_worker_init.c: the setup's init launches (wire_setup.init) from their module (cubin), once
 * after the arguments are filled and before the reference; inouts' restore copies taken again
 * after them. 0 (nothing to do without init), or -1 with err; *fatal when the context died. */
int wk_init_run(worker *w, const char *cubin, int *fatal, cterr *err);

/* Load, check and time one configuration (cubin: job->cubin_len bytes). Fills res; res->fatal set
 * when the worker must exit. */
void wk_measure(worker *w, const wire_job *job, const char *kernel, const void *cubin, wire_result *res);

/* The module of this image (gpu_worker_modules.c): one already loaded from the same bytes (then
 * *reused = 1), else loaded now, the least recently used of WK_MODULES unloaded to make room.
 * The worker owns it (wk_modules_free at exit). */
CUresult wk_module_get(worker *w, const void *image, size_t len, CUmodule *out, int *reused);
void wk_modules_free(worker *w);

/* The problem's cuBLAS baseline (gpu_worker_cublas.c): the median ms of cuBLAS SGEMM of shape
 * mnk, strict FP32 (type EL_F32), or of cublasGemmEx with EL_BF16 / EL_F16 inputs and FP32
 * compute; NAN with why filled when cuBLAS is unavailable or fails. */
double wk_sgemm_ms(worker *w, const int64_t mnk[3], elemtype type, char *why, size_t whylen);

/* Energy per launch over a window of job->want_energy ms (gpu_worker_energy.c); after wk_time. */
void wk_energy(worker *w, CUfunction f, const wire_job *job, wire_result *res);

#endif
