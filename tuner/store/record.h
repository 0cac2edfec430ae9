/* record: one measurement of one configuration on one problem — the unit the results store
 * keeps, the GPU worker produces, the replay backend answers and the reports read.
 *
 * All strings are owned by the record (record_free releases them); numeric fields that were
 * not measured are NAN (doubles) or -1 (ints). Times are in milliseconds. */
#ifndef CUTUNE_RECORD_H
#define CUTUNE_RECORD_H

#include <stdint.h>

typedef enum {
  ST_OK = 0,
  ST_COMPILE_ERROR,
  ST_LAUNCH_ERROR,    /* the launch itself was refused: too many threads, too much shared memory */
  ST_RUNTIME_FAULT,   /* the kernel faulted (illegal address, ...) or the worker died */
  ST_TIMEOUT,         /* the worker overran its time limit and was killed */
  ST_WRONG_RESULT,    /* output differs from the reference */
  ST_INVALID,         /* rejected before running (geometry out of range, ...) */
  ST_COMPILE_TIMEOUT, /* the compile ran past --compile-timeout; its worker was killed */
  ST_WORKER_LOST,     /* a compile worker was killed from outside mid-job (SIGKILL, SIGTERM,
                       the OOM killer): no fault of the configuration, so the store does not
                       answer for it and a resumed run compiles and measures it again */
  ST_SPACE_ERROR,     /* the space's own code failed for this configuration: a geometry, argument or
                       tensor map function raised or gave the wrong type or count (space.h): a
                       failure, which the store does not answer for (the space may be fixed) */
  ST_COUNT
} rec_status;

const char *rec_status_name(rec_status s);            /* "ok", "compile_error", ... */
int rec_status_parse(const char *s, rec_status *out); /* 0 or -1 */

#define REC_MAX_PARAMS 64

typedef struct record {
  char *space;   /* space name */
  char *config;  /* canonical key "TILE=64,PAD=1,..." (names in space order) */
  char *problem; /* canonical key "N=8192,M=8192" */
  int nparams;
  char *pname[REC_MAX_PARAMS];
  char *pvalue[REC_MAX_PARAMS]; /* values as text, as in the space */
  rec_status status;
  char *message; /* why it failed, "" when ok */
  int unchecked; /* 1: timed without a check (the space's check = false); written only when 1 */

  /* time statistics over `samples` timed launches, ms */
  double t_median, t_min, t_mean, t_std;
  int samples;
  /* single launches, each after a read-only L2 flush and timed alone (no back-to-back
   * overlap, no dirty L2 left by the previous launch): what Nsight Compute's
   * gpu__time_duration measures, less t_iso_floor: the same event pair around an empty kernel
   * (launch and event overhead, 1.4-3.9 us on the H200). Contenders only; NAN otherwise and in
   * older stores (whose t_isolated has no floor subtracted). */
  double t_isolated, t_iso_floor;
  /* Raced (docs/MEASURE.md): its timing stopped early because every one of its `samples` was
   * slower than this bound (ms: the k-th best time of the problem when it was measured, times
   * 1 + the racing margin) by more than their noise explains. Its statistics are those of its
   * few samples: an estimate of a time known to be above t_raced, not a full measurement; it is
   * checked like every other. NAN: timed in full (and in stores written before racing).
   * race_ref says which bound: RECORD_RACE_KTH (that k-th best; also when absent from a raced
   * record, as in stores written before it) or RECORD_RACE_BEST (fewer than k were timed in
   * full then: the best time so far x --race-early); NULL on a record timed in full. */
  double t_raced;
  char *race_ref;
  /* derived */
  double gbps, copy_share, gflops; /* copy_share: gbps / device's measured D2D copy GB/s */
  double cublas_share;             /* the problem's cuBLAS SGEMM time / t_median (cublas_sgemm spaces); NAN */
  double energy_mj;                /* millijoules per launch (NVML), NAN if unavailable */

  /* resources */
  int regs, smem_static, smem_dynamic, local_bytes, spill_stores, spill_loads;
  int block_threads;
  double occupancy; /* theoretical, 0..1 */
  char *limiter;    /* "registers" | "shared_memory" | "threads" | "blocks" | "" */
  double compile_ms;
  double measure_ms; /* the GPU worker's wall time on this configuration: load, check, timing */
  /* ... and where it went (NAN in older stores): loading the module and reading its function's
   * attributes; the check (poison, one launch, the comparison on the device, the first timing
   * estimate); the timed launches (warm-up and samples); the isolated pass (contenders) */
  double m_load_ms, m_check_ms, m_timing_ms, m_isolated_ms;

  /* provenance */
  char *template_hash; /* sha256 of the template and every file it includes (hex, 16 bytes; compile_source) */
  char *options_hash;  /* sha256 of the option list (hex, 16 bytes) */
  /* sha256 (hex, 16 bytes) of what decided the record's check on its problem: each output's
   * comparison (bitwise, tolerance, atol/rtol, reduce, mismatches, not compared), timing only,
   * the check kernel and the reference (the engine's job_check_hashes). NULL in records written
   * before it existed: those answer whatever the check (store_find). */
  char *check_hash;
  /* sha256 (hex, 16 bytes) of how the configuration was launched on its problem (the engine's
   * job_launch_hash): geometry, dynamic shared memory, each launch of a sequence, the arguments
   * as the kernel gets them (scalar values, buffer counts and types), tensor maps; of the limit
   * it is over, for one whose launch is over a limit. NULL in records written before it existed,
   * and where nothing was launched (not compiled for the target, the space's code failed):
   * those answer whatever the launch (store_find). */
  char *launch_hash;
  char *nvrtc_version, *driver_version;
  char *device_name, *device_cc, *device_uuid, *arch;
  char *timestamp;
  double sm_clock_mhz, mem_clock_mhz; /* NAN if unknown */
  int64_t throttle_reasons;           /* NVML bitmask, -1 if unknown */
  int64_t device_sms;                 /* the device's multiprocessors, -1 if unknown (older stores) */
  double temperature_c;
} record;

void record_init(record *r); /* zeroes strings, NAN doubles, -1 ints, status ST_OK */
void record_free(record *r);
void record_copy(record *dst, const record *src);     /* deep copy; dst need not be initialised */
void record_set_str(char **field, const char *value); /* replaces, copying value (NULL ok) */

/* Numeric fields by name, for objectives and the Pareto front: "time" (t_median), "energy"
 * (energy_mj), and t_min t_mean t_std gbps copy_share gflops regs smem_static smem_dynamic
 * local_bytes spill_stores spill_loads block_threads occupancy compile_ms measure_ms temperature_c
 * sm_clock_mhz. record_field gives NAN for an unknown name or an unmeasured value. */
int record_field_known(const char *name);
/* 1 when the record's timing was stopped by the racing rule (t_raced), 0 when it was timed in full. */
int record_raced(const record *r);
/* 1 when it was raced against the best so far (race_ref RECORD_RACE_BEST), before the k-th best existed. */
int record_raced_early(const record *r);
#define RECORD_RACE_KTH "kth"
#define RECORD_RACE_BEST "best"
/* What measuring the record cost, in ms: compile_ms plus measure_ms (the GPU worker's own time on
 * it) or, in records without measure_ms, t_median x samples; 0 when it says neither (the cost
 * of search, strategy_tell_cost, and of `cutune score --cost time`). */
double record_cost_ms(const record *r);
/* 1 for a record that ran successfully with a usable time: status ok and a positive, finite
 * median. Only such records are ranked, shipped or told to a search as a time (a store edited
 * by hand, or damaged, may hold a negative or NaN median). */
int record_timed(const record *r);
const char *record_field_names(void); /* the list above, for messages */
double record_field(const record *r, const char *name);

#endif
