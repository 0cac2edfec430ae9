/* compile_only: `cutune run` without a GPU — compile configurations for one architecture
 * through the pool and report resources and theoretical occupancy.
 *
 * Which configurations: every one of a space of at most TUNE_EXHAUSTIVE_MAX (tune.h); of a
 * larger one a sample of TUNE_DEFAULT_BUDGET, said so in the output; --sample N (or --budget N,
 * the measuring runs' evaluations, read here as the sample size) N of them; --sample all every
 * one. A sample starts with a cover that uses every value of every parameter (so every branch a
 * parameter selects in the template compiles), then random others (--seed). --time S stops
 * handing out configurations after S seconds (those in flight finish).
 *
 * What it prints: a summary (counts, failures, resource ranges, the configurations with the
 * best theoretical occupancy per limiter: report_compile_summary), or with -v the whole
 * resource table; --csv FILE writes the whole table as CSV too. The failures' messages follow,
 * then the totals. */
#ifndef CUTUNE_COMPILE_ONLY_H
#define CUTUNE_COMPILE_ONLY_H

#include "job.h"

/* How many of a space's `all` configurations a run without a GPU compiles under the options (the
 * rules above); note gets the line that says so ("" for a whole space that needs no word), and
 * *ordered is 1 when they go in the space's order (else a cover first, then random ones). */
size_t compile_only_count(size_t all, const run_opts *o, char *note, size_t len, int *ordered);

/* The reference kernel is compiled first (an error fails the run); out: what it came to. */
int run_compile_only(space *s, const run_opts *o, const char *self_exe, const char *why_no_gpu, run_outcome *out,
                     cterr *err);
#endif
