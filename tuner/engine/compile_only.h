/* compile_only: `cutune run` without a GPU — compile every configuration for one architecture
 * through the pool and report resources and theoretical occupancy. */
#ifndef CUTUNE_COMPILE_ONLY_H
#define CUTUNE_COMPILE_ONLY_H

#include "job.h"

/* The reference kernel is compiled first (an error fails the run); out: what it came to. */
int run_compile_only(space *s, const run_opts *o, const char *self_exe, const char *why_no_gpu, run_outcome *out,
                     cterr *err);
#endif
