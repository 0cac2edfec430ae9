/* ncu: Nsight Compute as cutune uses it — the fixed metric set, the command line that profiles
 * one configuration, the parser of `ncu --csv --page raw` output and the one-line reading of a
 * configuration's counters in the terms of the seed documents (memory-bound / compute-bound,
 * coalescing, bank conflicts, occupancy and its limiter, register spilling, warp stalls).
 *
 * tuner/explain is the only unit that runs ncu or compute-sanitizer (through base/proc.c);
 * nothing here includes a CUDA header or touches the device. Parsing and reading are pure
 * functions over text and numbers, tested on recorded CSV from an H200 (tests/fixtures/ncu/).
 *
 * Ownership: ncu_metrics is a plain value (fixed arrays); ncu_argv's strings are owned by the
 * ncu_cmd and released by ncu_cmd_free. */
#ifndef CUTUNE_NCU_H
#define CUTUNE_NCU_H

#include <stddef.h>

#include "base/util.h"

/* The metrics cutune asks for, by index. Values are in ncu's base units (ns, bytes, %, counts). */
typedef enum {
  NM_DURATION_NS,  /* gpu__time_duration.sum */
  NM_DRAM_PCT,     /* dram__throughput.avg.pct_of_peak_sustained_elapsed */
  NM_DRAM_READ,    /* dram__bytes_read.sum */
  NM_DRAM_WRITE,   /* dram__bytes_write.sum */
  NM_SM_PCT,       /* sm__throughput.avg.pct_of_peak_sustained_elapsed */
  NM_L1_HIT,       /* l1tex__t_sector_hit_rate.pct */
  NM_L2_HIT,       /* lts__t_sector_hit_rate.pct */
  NM_BANK_LD,      /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum */
  NM_BANK_ST,      /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum */
  NM_WAVES_LD,     /* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum */
  NM_WAVES_ST,     /* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum */
  NM_SHINST_LD,    /* smsp__inst_executed_op_shared_ld.sum */
  NM_SHINST_ST,    /* smsp__inst_executed_op_shared_st.sum */
  NM_OCC_ACHIEVED, /* sm__warps_active.avg.pct_of_peak_sustained_active */
  NM_OCC_THEORY,   /* sm__maximum_warps_per_active_cycle_pct */
  NM_LIM_REGS,     /* launch__occupancy_limit_registers (blocks per SM) */
  NM_LIM_SMEM,     /* launch__occupancy_limit_shared_mem */
  NM_LIM_WARPS,    /* launch__occupancy_limit_warps */
  NM_LIM_BLOCKS,   /* launch__occupancy_limit_blocks */
  NM_REGS,         /* launch__registers_per_thread */
  NM_SMEM_BLOCK,   /* launch__shared_mem_per_block_static */
  NM_BLOCK_SIZE,   /* launch__block_size */
  NM_GRID_SIZE,    /* launch__grid_size */
  NM_LOCAL_LD,     /* l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum (spills and local arrays) */
  NM_LOCAL_ST,     /* l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum */
  NM_GLD_SECTORS,  /* l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum */
  NM_GLD_REQUESTS, /* l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum */
  NM_GST_SECTORS,  /* l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum */
  NM_GST_REQUESTS, /* l1tex__t_requests_pipe_lsu_mem_global_op_st.sum */
  /* optional: asked for by a regex (see ncu_metric_optional), NAN where the GPU has no such pipe */
  NM_TENSOR_HMMA, /* sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active (mma.sync) */
  NM_TENSOR_GMMA, /* sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active (wgmma, sm_90) */
  NM_WAVES_LDSM,  /* l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum (ldmatrix) */
  NM_SHINST_LDSM, /* smsp__sass_inst_executed_op_ldsm.sum */
  NM_COUNT
} ncu_metric;

const char *ncu_metric_name(ncu_metric m); /* the ncu metric name */
const char *ncu_metric_key(ncu_metric m);  /* short key for JSON and tables: "dram_pct" */
int ncu_metric_from_key(const char *key);  /* index, or -1 */
/* 1 for the metrics that not every GPU has (the tensor pipes: HMMA since sm_70, GMMA on sm_90;
 * ldmatrix's wavefronts and instructions):
 * ncu is given a regex for them, which matches what the device has instead of failing the
 * profile, so they may be NAN in a profile that is otherwise complete. */
int ncu_metric_optional(ncu_metric m);

/* Warp stall reasons (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio:
 * cycles a warp spends stalled for that reason per issued instruction), requested by regex. */
#define NCU_MAX_STALLS 32
typedef struct ncu_stall {
  char reason[40]; /* "long_scoreboard" */
  double per_issue;
} ncu_stall;

typedef struct ncu_metrics {
  double v[NM_COUNT]; /* NAN where ncu gave none or "n/a" */
  int nstalls;
  ncu_stall stall[NCU_MAX_STALLS];
  char kernel[128];
} ncu_metrics;

void ncu_metrics_init(ncu_metrics *m); /* every value NAN, no stalls */

/* The --metrics argument: the fixed set and the stall regex, comma-separated (caller frees). */
char *ncu_metrics_arg(void);
/* Where ncu refused the --metrics list because it lacks one of them ("Failed to find metric
 * NAME" in its output: older or newer ncu versions, other chips), remove NAME from `metrics` (the
 * comma-separated list given) and copy it to `name` (room for len); 1 done, 0 nothing of the
 * kind, or the name is not in the list. */
int ncu_drop_missing(char *metrics, const char *output, char *name, size_t len);

/* The -k argument that selects the launches of a space's kernel, given as the space names it (a
 * plain name, or a C++ name expression: "&ns::k<float, 4>", "k<TILE>"): ncu matches -k against
 * the function's base name (--kernel-name-base function: no namespace, template arguments or
 * parameters), so this is "regex:^k$" with the base name escaped (caller frees). */
char *ncu_kernel_filter(const char *kernel);

/* Parse `ncu --csv --page raw` output (other lines — ==PROF== messages, the program's own
 * output — are skipped). Row `row` (0: the first profiled launch) of the kernel rows goes to
 * out. Handles the units row (time and byte units are scaled to ns and bytes), thousands
 * separators, "n/a". Returns the number of kernel rows found (>= 1), or -1 with err: no
 * header, a row shorter than the header, or row out of range. */
int ncu_parse_csv(const char *text, size_t n, int row, ncu_metrics *out, cterr *err);

/* Why ncu produced no counters, from its output: "ERR_NVGPUCTRPERM: ..." (no permission for
 * the performance counters), "LibraryNotLoaded", "No kernels were profiled", or NULL when the
 * output says nothing known. The returned text is static. */
const char *ncu_diagnose(const char *text);

/* Derived figures: NAN when an input is missing. */
double ncu_sectors_per_request(const ncu_metrics *m, int store); /* global ld (0) / st (1) */
double ncu_shared_ways(const ncu_metrics *m, int store);         /* wavefronts per shared instruction */
const char *ncu_limiter(const ncu_metrics *m);                   /* "registers", "shared memory", ... */

/* The top stall reasons, largest first: fills idx (indices into m->stall), returns how many
 * (at most max; "selected", which is issuing, not stalling, is left out). */
int ncu_top_stalls(const ncu_metrics *m, int *idx, int max);
/* The seed documents' name for a stall reason: "memory dependency (long scoreboard)". */
const char *ncu_stall_label(const char *reason);

/* One line in the seeds' terms, e.g. "memory-bound at 83 % of DRAM peak; coalesced (4.0 / 4.0
 * sectors per request); no bank conflicts; occupancy 93 % (theory 100 %); stalls: memory
 * dependency (long scoreboard) 18.2, synchronization (barrier) 7.0". Appended to out. */
void ncu_reading(const ncu_metrics *m, dbuf *out);

#endif
