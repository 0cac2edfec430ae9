/* gpu: the coordinator's side of a GPU worker process. gpu_worker.c (the worker's side) and
 * cuda_api.c (dlopen'd Driver API and NVML) are the only units that include cuda.h.
 *
 * The coordinator never initialises CUDA. gpu_start spawns `self_exe __gpu-worker <ordinal>`
 * (posix_spawn; never fork after CUDA initialisation) and talks to it over pipes. A worker
 * that dies or overruns the job's time limit is killed and restarted (re-running setup);
 * the job it was on comes back with status runtime_fault or timeout, and the caller goes on.
 *
 * Ownership: gpu_device_info strings are owned by the gpu handle. */
#ifndef CUTUNE_GPU_H
#define CUTUNE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "space/launch.h"
#include "store/record.h"
#include "base/util.h"

typedef struct gpu_device_info {
  char name[128];
  char uuid[64];
  char cc[8];      /* "9.0" */
  char arch[8];    /* "sm_90" */
  char driver[32]; /* "13.0" (driver API version) */
  int sms;
  int l2_bytes;
  int64_t mem_bytes;
  double copy_gbps; /* device-to-device copy bandwidth measured by the worker at start, bytes read+written */
} gpu_device_info;

typedef struct gpu gpu;

/* How many CUDA devices this machine has, asked of a short-lived worker so that this process
 * stays CUDA-free. 0 with err filled ("no CUDA driver: libcuda.so.1 not found") when none. */
int gpu_count(const char *self_exe, cterr *err);
/* Whether err is a GPU worker's start failing for want of a CUDA driver or device (what
 * gpu_count would have reported as none), rather than any other error: a caller that skipped
 * gpu_count (one worker's start fewer: ~0.1 s on the H200) can then carry on without a GPU.
 * It reads err's code (CTERR_NO_DEVICE), which the worker sets where it finds no driver or
 * device and its ERROR carries (gpu_wire.h), never the message. */
int gpu_error_is_no_device(const cterr *err);

int gpu_start(gpu **out, const char *self_exe, int ordinal, cterr *err);
/* n workers at once (devices ordinals[0..n-1]): all are spawned before any is waited for, so
 * their CUDA start-up runs in parallel. On failure none is left running. */
int gpu_start_all(gpu **out, const char *self_exe, const int *ordinals, int n, cterr *err);
/* gpu_start_all in two halves, so that what needs only the devices' identity (the reference
 * compile needs the architecture) runs while the workers create their contexts, load their
 * helper kernels, open NVML and measure the copy bandwidth (~0.13 s of a worker's 0.23 s start
 * on the H200, docs/MEASURE.md). gpu_start_all_begin spawns the n workers and reads each one's
 * IDENT (gpu_wire.h), sent right after cuInit: gpu_info then has every field but copy_gbps
 * (NAN). On failure none is left running and out[] is NULL; an error for want of a driver or
 * device is the worker's own (gpu_error_is_no_device). gpu_start_all_end reads their HELLOs:
 * gpu_info is then whole, and gpu_setup and the rest may be called (before it they fail). On
 * failure err names the device whose worker did not start; the handles stay the caller's, to
 * gpu_stop (which kills a worker still starting). */
int gpu_start_all_begin(gpu **out, const char *self_exe, const int *ordinals, int n, cterr *err);
int gpu_start_all_end(gpu *const *gs, int n, cterr *err);
const gpu_device_info *gpu_info(const gpu *g);
void gpu_stop(gpu *g);

/* Problem setup: allocate and fill the arguments (seeded), compile-free: the reference
 * cubin is given. Runs the reference once and keeps its outputs on the device. */
typedef struct gpu_problem {
  int nargs;
  argspec args[MAX_ARGS];
  uint64_t seed;
  double tolerance; /* 0: bitwise exact */
  const void *ref_cubin;
  size_t ref_cubin_len;
  const char *ref_kernel;
  launch_geom ref_geom;
  double bytes, flops; /* per launch, NAN if unknown: for GB/s and GFLOP/s */
  int64_t sgemm[3];    /* M, N, K of a cuBLAS SGEMM baseline timed at setup (records' cublas_share); 0: none */
  int32_t gemm_type;   /* its inputs: EL_F32 (cublasSgemm, strict FP32), EL_BF16 or EL_F16 (cublasGemmEx) */
  int nsyms;           /* symbols filled in every module the worker loads (the reference's too) */
  symspec syms[MAX_SYMBOLS];
  const void *symdata[MAX_SYMBOLS]; /* SYMSRC_DATA: syms[k].data_len bytes */
  int unchecked;                    /* timing only: no reference (ref_cubin may be NULL), nothing compared */
  int ref_per_config;               /* the reference is run from each job's own module (gpu_job.ref_kernel) */
  const void *check_cubin;          /* the user's check kernel (NULL: the built-in checks), its lowered name */
  size_t check_cubin_len;
  const char *check_kernel;
  int ref_nargs; /* the reference's arguments (indices into args); 0: all, in order */
  int8_t ref_arg[MAX_ARGS];
  const void *argdata[MAX_ARGS]; /* args[i].fill FILL_DATA: its count x element size bytes, uploaded in
                                    place of the seeded fill (the caller's, copied into the setup frame) */
  /* the space's init launches (space.h: space_init_*), run once after the arguments are filled and
   * before the reference, untimed, from init_cubin (their kernels' lowered names in init[k].kernel);
   * what they leave in the buffers is their initial contents (an inout's restore copy too) */
  int ninit;
  launch_step init[MAX_LAUNCHES];
  const void *init_cubin;
  size_t init_cubin_len;
} gpu_problem;
int gpu_setup(gpu *g, const gpu_problem *p, cterr *err);
/* Several problems at once (the overlap of a run's problems, docs/ARCHITECTURE.md): a worker
 * holds up to GPU_PROBLEMS, each in a slot that jobs name (gpu_job.slot). gpu_setup_at of slot 0
 * starts a new set (every other slot is dropped, as gpu_setup does); of slot k > 0 it adds
 * problem p beside those set up. A worker restarted after a fault is given every slot's problem
 * again, in order. */
#define GPU_PROBLEMS 4
int gpu_setup_at(gpu *g, int slot, const gpu_problem *p, cterr *err);
/* gpu_setup_at on each of n workers (errors name the device when n > 1). */
int gpu_setup_all(gpu *const *gs, int n, int slot, const gpu_problem *p, cterr *err);
/* Workers that died in the last gpu_setup (killed from outside, say) and were replaced before
 * one took the problem: gpu_setup (and a restart after a fault) tries 3 workers at most. */
int gpu_setup_deaths(const gpu *g);
/* The copy ceiling records are compared with (copy_share): a device-to-device copy of the set-up
 * problem's bytes (that of slot), measured by the worker at setup (as cudaMemcpy would move them), or the
 * device's large-copy figure where the problem's data would fit in L2 or no bytes were given. */
double gpu_copy_gbps(const gpu *g, int slot);
/* The cuBLAS SGEMM baseline of slot's problem in ms (gpu_problem.sgemm), NAN when none was asked
 * for or it could not be timed; *why (if given) then says why, or is "" when none was asked. */
double gpu_sgemm_ms(const gpu *g, int slot, const char **why);

#define GPU_NAME_MAX 512 /* a kernel's lowered (mangled) name */
typedef struct gpu_job {
  int slot; /* the problem it is measured on (gpu_setup_at; 0 after gpu_setup) */
  const void *cubin;
  size_t cubin_len;
  const char *kernel;
  launch_geom geom;
  double timeout_s; /* wall-clock limit for load+check+timing */
  double best_ms;   /* best median so far on this problem (NAN if none): who is a contender */
  int min_samples, max_samples;
  int min_samples_fixed; /* 0: min_samples may shrink (to 3 at least) where they would take > 12 ms */
  double target_rse;     /* stop once the relative standard error of the mean is below this (0.005) */
  int want_energy;       /* > 0: then energy per launch over a window of this many ms (NVML) */
  int isolated_samples;  /* > 0: a contender (within 5 % of best_ms, or no best yet) also gets its
                           isolated per-launch time (record t_isolated): that many single launches
                           (fewer when they would take more than ~8 ms, 3 at least), each after a
                           read-only L2 flush, timed one by one */
  int nargvals;          /* scalars of this configuration (runtime parameters: space_config_args) */
  argval argvals[MAX_ARGVALS];
  int ntypes; /* element types of the buffers typed by the configuration (space_config_types) */
  argtype types[MAX_ARGTYPES];
  int ntmaps; /* tensor maps of this configuration (ct.tensormap: space_config_tmaps) */
  tmapspec tmaps[MAX_TMAPS];
  /* a reference run from this job's module (gpu_problem.ref_per_config): its kernel's lowered name,
   * geometry and key (the worker runs it again only when the key differs from its last run's) */
  char ref_kernel[GPU_NAME_MAX];
  launch_geom ref_geom;
  uint64_t ref_key;
  /* a sequence of launches timed as one configuration (space.h: launches; 0: the one kernel with
   * all arguments in order); cubin is then a bundle of its programs (compile_bundle) */
  int nlaunches;
  launch_step launches[MAX_LAUNCHES];
  /* Racing (docs/MEASURE.md): timing stops, and the record says raced (t_raced), once after at
   * least race_samples samples every sample is slower than race_ms x (1 + race_margin) and the
   * mean's excess over that bound is beyond the 99.9 % one-sided Student t bound of the samples'
   * noise. race_ms is the k-th best fully timed median of the problem (the slowest time that
   * still enters the tables). Where it is NAN (fewer than k timed in full), the bound is
   * best_ms (or the worker's own best on the problem, if faster) x race_early, when race_early
   * > 1 and there is a best; the record says which (race_ref). 0 race_samples: every
   * configuration is timed in full. */
  double race_ms, race_margin, race_early;
  int race_samples;
} gpu_job;

/* Measure one configuration: load, check against the reference (outputs poisoned first),
 * time, unload. Fills rec's status, message, time statistics, derived figures, achieved
 * resources (regs, smem_static from cuFuncGetAttribute), occupancy from the driver, clocks,
 * throttle reasons, energy, device fields. Returns 0 when a record was produced (whatever its
 * status), -1 only when the worker cannot be (re)started at all. */
int gpu_measure(gpu *g, const gpu_job *job, record *rec, cterr *err);

/* gpu_measure in two halves, so the coordinator can record one result (write, fsync) while
 * the worker measures the next: gpu_submit sends the job and returns at once; gpu_collect waits
 * for the oldest job's result (deadline, restart on death) and fills rec as gpu_measure does.
 * Up to GPU_DEPTH jobs may be in flight: the second waits in the worker's pipe, so the worker
 * starts it the moment it has answered the first, without waiting for the coordinator; its
 * time limit runs from when the first is collected. The job's cubin must stay valid until it is
 * collected (a replacement worker, after a fault, is sent the queued jobs again). When
 * gpu_collect fails (the worker cannot be restarted), every job in flight is dropped. */
#define GPU_DEPTH 2
int gpu_submit(gpu *g, const gpu_job *job, cterr *err);
int gpu_collect(gpu *g, record *rec, cterr *err);
/* Whether job can be submitted now: nothing in flight, or room for it (GPU_DEPTH, and the
 * pipe holds it beside the jobs ahead of it, so that submitting never blocks). */
int gpu_can_queue(const gpu *g, const gpu_job *job);
/* How many jobs were submitted and not yet collected. */
int gpu_pending(const gpu *g);
/* Several GPUs at once: waits up to timeout_ms (-1: until one is ready) for one of the n
 * (at most GPU_WAIT_MAX; NULL entries and those without a pending job are skipped) whose
 * gpu_collect will not block: its result has arrived, its worker died, or its job's deadline
 * (set at submit) has passed. Returns its index, or -1 on timeout or when none is pending. */
#define GPU_WAIT_MAX 64
int gpu_wait_any(gpu *const *gs, int n, int timeout_ms);

/* Body of the hidden `cutune __gpu-worker ORDINAL` subcommand. */
int gpu_worker_main(int argc, char **argv);

#endif
