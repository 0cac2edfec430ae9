/* measure_one: one configuration on one problem, compiled through the on-disk compile cache and
 * measured by a GPU worker as `run` measures it — what `cutune __profile-one` (cli/profile_one.c)
 * runs under ncu and compute-sanitizer for `cutune explain`. Nothing is written to a store. */
#ifndef CUTUNE_MEASURE_ONE_H
#define CUTUNE_MEASURE_ONE_H

#include "store/record.h"
#include "base/util.h"

typedef struct measure_one_opts {
  int samples;  /* timed launches, exactly (under a sanitizer: 1) */
  int isolated; /* isolated single launches (0: none) */
  int device;   /* GPU ordinal */
} measure_one_opts;

/* config: NAME=VALUE for every parameter (job_find_config); problem: an index or key
 * (job_find_problem). rec (initialised by the call, the caller frees it) gets the record, with
 * the device's name; a configuration that does not compile or launch is a record of that
 * status, not an error. The worker's time limit is 600 s: under the tools it runs slowly. */
int measure_one(const char *space_path, const char *config, const char *problem, const measure_one_opts *o, record *rec,
                cterr *err);

#endif
