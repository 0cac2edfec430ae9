/* compile_only: `cutune run` without a GPU — compile every configuration for one architecture
 * through the pool and report resources and theoretical occupancy. */
#ifndef CUTUNE_COMPILE_ONLY_H
#define CUTUNE_COMPILE_ONLY_H

#include "job.h"

int run_compile_only(space *s, const run_opts *o, const char *self_exe, const char *why_no_gpu, cterr *err);
#endif
