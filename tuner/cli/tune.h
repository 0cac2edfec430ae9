/* tune: the GPU path of `cutune run` — strategy, compile pool, GPU worker and store in one
 * pipelined loop. */
#ifndef CUTUNE_TUNE_H
#define CUTUNE_TUNE_H

#include "job.h"

/* out: what the run came to (job.h), for the exit status */
int run_tune(space *s, const run_opts *o, const char *self_exe, run_outcome *out, cterr *err);
#endif
