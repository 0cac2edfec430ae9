/* tune: the GPU path of `cutune run` — strategy, compile pool, GPU worker and store in one
 * pipelined loop. */
#ifndef CUTUNE_TUNE_H
#define CUTUNE_TUNE_H

#include "job.h"

/* Without --budget and --time, a space of more than TUNE_EXHAUSTIVE_MAX configurations is not
 * measured whole: each problem gets the default strategy with at most TUNE_DEFAULT_BUDGET
 * evaluations and TUNE_DEFAULT_TIME seconds, whichever ends first (`cutune run --help`). */
#define TUNE_EXHAUSTIVE_MAX 5000
#define TUNE_DEFAULT_BUDGET 1000
#define TUNE_DEFAULT_TIME 90
/* The runtime sweep (`cutune run --help`: runtime parameters) covers spaces whose runtime
 * parameters make at most this many combinations per compiled module. */
#define TUNE_SWEEP_MAX 16
/* Shape sets (a run over TUNE_SET_MIN problems or more, or --transfer/--cross): a search seeded from the shapes tuned before
 * (transfer) ends once this many proposals (times the runtime sweep's combinations) have not
 * gained 0.5 % (--patience); the cross phase measures the best TUNE_CROSS_TOP kernels of every
 * shape on every shape, at most TUNE_CROSS_MAX kernels (`cutune run --help`). */
#define TUNE_SET_MIN 5 /* a run over at least this many problems is a shape set by default */
#define TUNE_PATIENCE 40
#define TUNE_TRANSFER_NEAR 3
#define TUNE_TRANSFER_PER 3
#define TUNE_CROSS_TOP 3
#define TUNE_CROSS_MAX 48
#define XSTR_(x) #x
#define XSTR(x) XSTR_(x)

/* Tune on the devices ordinals[0..n-1] of this host (n 0 on an MPI run's rank 0, which has
 * the other ranks measure). out: what the run came to (job.h), for the exit status. */
int run_tune(space *s, const run_opts *o, const char *self_exe, const int *ordinals, int ndevices, run_outcome *out,
             cterr *err);
/* Budget (evaluations), time limit (seconds, 0 = none), strategy name and a note for the progress
 * header, for one problem of a space of `count` configurations under the options (the rules above). */
void tune_limits(size_t count, const run_opts *o, long *budget, double *time_limit, const char **sname,
                 const char **note);
#endif
