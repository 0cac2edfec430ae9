/* tune: the GPU path of `cutune run` — strategy, compile pool, GPU worker and store in one
 * pipelined loop. */
#ifndef CUTUNE_TUNE_H
#define CUTUNE_TUNE_H

#include "job.h"

/* Tune on the devices ordinals[0..n-1] of this host (n 0 on an MPI run's rank 0, which has
 * the other ranks measure). out: what the run came to (job.h), for the exit status. */
int run_tune(space *s, const run_opts *o, const char *self_exe, const int *ordinals, int ndevices, run_outcome *out,
             cterr *err);
#endif
