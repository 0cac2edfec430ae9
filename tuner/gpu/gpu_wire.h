/* gpu_wire: the protocol between the coordinator (gpu.c, gpu_jobs.c) and a GPU worker
 * (gpu_worker.c), over the worker's stdin/stdout. No CUDA here.
 *
 * A frame is a 16-byte header {magic, type, payload length (u64)} and the payload. Both ends
 * are the same executable, so fixed-size payload structs travel as raw bytes; variable parts
 * (kernel name, cubin) follow the struct.
 *
 *   worker -> coordinator at start: IDENT(wire_ident), then HELLO(gpu_device_info); ERROR
 *     in place of either (before IDENT: no driver or no such device, as its code says, or the
 *     driver failed otherwise; after it: the context, the helper kernels and the rest of the
 *     start failed)                                                          then commands:
 *   COUNT       -> COUNT_IS(int32 count) | ERROR     (the `--count` worker sends it unasked)
 *   SETUP(wire_setup, kernel name, cubin, [check kernel name, its cubin], [init cubin], symbols' data,
 *         buffers' data)                  -> SETUP_OK | ERROR
 *   MEASURE(wire_job, kernel name, cubin)  -> RESULT(wire_result)
 * A worker holds up to GPU_PROBLEMS problems at once: a setup fills slot wire_setup.slot (slot 0
 * frees every other first: a new set), a job runs on the problem of wire_job.slot.
 *   QUIT        -> the worker exits
 * A worker whose CUDA context is dead (a fault) sets wire_result.fatal and exits after replying.
 *
 * An ERROR is wire_error (the code), then the message's text (wire_write_error).
 *
 * IDENT is sent right after cuInit and the device's attribute queries, before the context
 * (~0.1 s on the H200) and the rest of the start: what needs only the device's identity (the
 * reference compile, for its architecture) overlaps them (gpu.h, gpu_start_all_begin).
 *
 * Ownership: frame payloads are read into a caller-owned dbuf. */
#ifndef CUTUNE_GPU_WIRE_H
#define CUTUNE_GPU_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "space/launch.h"
#include "base/util.h"

enum {
  MSG_HELLO = 1,
  MSG_ERROR,
  MSG_COUNT_IS,
  MSG_SETUP,
  MSG_SETUP_OK,
  MSG_MEASURE,
  MSG_RESULT,
  MSG_QUIT,
  MSG_IDENT,
};

#define WIRE_MAGIC 0x43555457u /* "WTUC" */
#define WIRE_MAX_PAYLOAD ((uint64_t)1 << 31)
#define WIRE_MSG_MAX 2048

typedef struct wire_setup {
  int32_t slot; /* 0..GPU_PROBLEMS-1; 0 drops every other problem the worker holds */
  int32_t nargs;
  argspec args[MAX_ARGS];
  uint64_t seed;
  double tolerance;
  launch_geom ref_geom;
  double bytes, flops;
  int64_t sgemm[3];        /* M, N, K of the cuBLAS SGEMM baseline; 0: none */
  int32_t gemm_type;       /* its inputs' elemtype: EL_F32 (cublasSgemm), EL_BF16 or EL_F16 (cublasGemmEx) */
  int32_t baselines_known; /* a restarted worker's setup: the coordinator keeps the copy and cuBLAS
                              figures of the first, so they are not measured again */
  int32_t nsyms;           /* symbols: their SYMSRC_DATA bytes follow the cubin, in order, then the bytes of
                              each argument filled from data (FILL_DATA), in order */
  symspec syms[MAX_SYMBOLS];
  int32_t unchecked;         /* timing only: no reference run, nothing compared */
  int32_t ref_per_config;    /* the reference comes with each job (wire_job.ref_kernel) */
  int32_t ref_nargs;         /* the reference's arguments (0: all, in order) */
  uint32_t check_kernel_len; /* the user's check kernel: its name and cubin follow the reference's */
  uint64_t check_cubin_len;
  int8_t ref_arg[MAX_ARGS];
  int32_t ninit; /* init launches (gpu_problem.init): their cubin follows the check kernel's */
  launch_step init[MAX_LAUNCHES];
  uint64_t init_cubin_len;
  uint32_t kernel_len; /* name bytes follow the struct, then cubin_len cubin bytes */
  uint64_t cubin_len;
} wire_setup;

/* MSG_IDENT's payload: the device as the driver describes it before any context; HELLO's
 * gpu_device_info follows with the same fields and the copy bandwidth. */
typedef struct wire_ident {
  int32_t ordinal;      /* the worker's device (its command line), for the coordinator to check */
  gpu_device_info info; /* all but copy_gbps (NAN: measured later in the start) */
} wire_ident;

/* MSG_ERROR's payload, before the message's text: the worker's cterr.code, CTERR_NO_DEVICE
 * where it found no CUDA driver or no such device (the coordinator's gpu_error_is_no_device),
 * else CTERR_OTHER. */
typedef struct wire_error {
  int32_t code;
} wire_error;

/* MSG_SETUP_OK's payload: the problem's reference figures. */
typedef struct wire_setup_ok {
  double copy_gbps; /* a device-to-device copy of the problem's bytes; NAN: the large copy stands */
  double sgemm_ms;  /* the cuBLAS SGEMM baseline; NAN: not asked for, or unavailable (sgemm_why) */
  char sgemm_why[200];
} wire_setup_ok;

typedef struct wire_job {
  int32_t slot; /* the problem it runs on (wire_setup.slot) */
  launch_geom geom;
  double timeout_s, best_ms, target_rse;
  int32_t min_samples, max_samples, want_energy;
  int32_t min_samples_fixed; /* 0: fewer (3 at least) where min_samples launches would take > 12 ms */
  int32_t isolated_samples;  /* > 0: also time that many single launches after a clean L2 (contenders) */
  int32_t nargvals;          /* scalars that replace the setup's for this job (runtime parameters) */
  argval argvals[MAX_ARGVALS];
  int32_t ntypes; /* element types of the buffers typed by the configuration (argspec.typed) */
  argtype types[MAX_ARGTYPES];
  int32_t ntmaps; /* tensor maps the worker encodes for this job (ARG_TENSORMAP arguments) */
  tmapspec tmaps[MAX_TMAPS];
  char ref_kernel[GPU_NAME_MAX]; /* a reference in this job's module ("": none), its geometry and key */
  launch_geom ref_geom;
  uint64_t ref_key;
  int32_t nlaunches; /* a sequence (0: the kernel alone, all arguments in order) */
  launch_step launches[MAX_LAUNCHES];
  double race_ms, race_margin; /* racing (gpu_job): the reference and the margin; race_ms NAN: none yet */
  double race_early;           /* ... before it: the factor on the best so far (> 1; 0: off) */
  int32_t race_samples;        /* 0: no racing */
  uint32_t kernel_len;
  uint64_t cubin_len;
} wire_job;

/* The reference a raced configuration lost to (wire_result.race_ref; record.h race_ref). */
enum { WIRE_RACE_NONE, WIRE_RACE_KTH, WIRE_RACE_BEST };

typedef struct wire_result {
  int32_t status; /* rec_status */
  int32_t fatal;  /* the worker exits after this reply (its context is dead) */
  char message[WIRE_MSG_MAX];
  double t_median, t_min, t_mean, t_std;
  int32_t samples;
  double gbps, copy_share, gflops, energy_mj;
  int32_t regs, smem_static, smem_dynamic, local_bytes, block_threads;
  double occupancy;
  double sm_clock_mhz, mem_clock_mhz, temperature_c;
  int64_t throttle_reasons;
  int32_t flush_l2, batch; /* how it was timed: L2 flushed before each launch; launches per event pair */
  double t_isolated;  /* median of single launches after a read-only L2 flush less t_iso_floor, ms; NAN: not measured */
  double t_iso_floor; /* the event pair's floor subtracted from it (an empty kernel timed alike), ms */
  double measure_ms;  /* the worker's wall time on the job: load, check, timing, unload */
  double load_ms, check_ms, timing_ms, isolated_ms; /* where measure_ms went (record.h) */
  double t_raced;        /* raced: the bound every sample exceeded (record.h); NAN: timed in full */
  int32_t race_ref;      /* raced: the reference of that bound (WIRE_RACE_*) */
  int32_t module_reused; /* 1: the module was already loaded (a sibling's: the same cubin) */
} wire_result;

/* Blocking, whole-frame I/O for the worker. 0, or -1 (EOF or error) with err filled. */
int wire_write(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen, const void *c,
               size_t clen, cterr *err);
int wire_read(int fd, uint32_t *type, dbuf *payload, cterr *err);
/* An ERROR frame with e's code and message. 0, or -1 with err filled. */
int wire_write_error(int fd, const cterr *e, cterr *err);
/* An ERROR frame's message (NUL-terminated, in payload) and, where code is not NULL, its code;
 * a payload too short for the code gives CTERR_OTHER and a message saying so. */
const char *wire_error_text(const dbuf *payload, int *code);

/* Header validation shared by both ends: 0, or -1 with err. */
int wire_check_header(const unsigned char hdr[16], uint32_t *type, uint64_t *len, cterr *err);
void wire_make_header(unsigned char hdr[16], uint32_t type, uint64_t len);

void wire_result_init(wire_result *r); /* statistics NAN / -1, status ok, message "" */

#endif
