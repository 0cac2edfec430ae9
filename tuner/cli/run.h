/* run: the `cutune run` command — options, the compile-only path (no GPU), and the tuning
 * loop that pipes a strategy's proposals through the compile pool to a GPU worker and into
 * the results store. */
#ifndef CUTUNE_RUN_H
#define CUTUNE_RUN_H

#include <stdint.h>

#include "compile/compile.h"
#include "store/record.h"
#include "space/space.h"

typedef struct run_opts {
  const char *space_path;
  const char *results_dir; /* default "results" */
  const char *arch;        /* NULL: the device's, or sm_90 without one */
  const char *cache_dir;   /* NULL: compile_cache_default_dir() */
  int no_cache;
  int jobs;                /* compile workers; 0 = online CPUs */
  int device;              /* GPU ordinal */
  int compile_only;
  const char *strategy;    /* NULL: default for the space and budget */
  long budget;             /* evaluations per problem; 0 = unlimited */
  double time_limit;       /* seconds per problem; 0 = unlimited */
  uint64_t seed;
  const char *problem;     /* only this problem key (or index) */
  int top;                 /* rows in the final table */
  int max_samples, min_samples;
  double rse;
  int quiet, verbose;
  int progress_tty;        /* -1 auto */
} run_opts;

int run_main(int argc, char **argv);

/* Shared by the compile-only and GPU paths: the compile job of configuration cfg
 * (-D options from the configuration, then the space's options). Strings in job point into
 * storage owned by `hold` (free with run_job_hold_free). */
typedef struct run_job_hold {
  char *opts[COMPILE_MAX_OPTS];
  int n;
} run_job_hold;
int run_make_job(const space *s, const char *src, size_t cfg, const char *arch, compile_job *job,
                 run_job_hold *hold, cterr *err);
void run_job_hold_free(run_job_hold *h);
/* sha256 (16 bytes hex) of a job's option list, for provenance and resume. */
void run_options_hash(const compile_job *job, char out[33]);

/* Whether --problem (if given) selects problem prob: by index or by key. */
int run_problem_selected(const space *s, const run_opts *o, int prob);
/* The compile pool the options ask for (--jobs, --cache/--no-cache). *jobs gets the worker count. */
int run_open_pool(const run_opts *o, const char *self_exe, cpool **pool, int *jobs, cterr *err);

/* The two paths, once the space is loaded and options are settled. */
int run_compile_only(space *s, const run_opts *o, const char *self_exe, const char *why_no_gpu, cterr *err);
int run_tune(space *s, const run_opts *o, const char *self_exe, cterr *err);

/* A record for configuration cfg on problem prob with the space's parameters, the compile
 * result's status and resources, and the theoretical occupancy on arch (geometry from the
 * space). Fills rec (initialised by the call). */
void run_record_base(space *s, size_t cfg, int prob, const char *arch, const compile_result *cr,
                     record *rec);
#endif
