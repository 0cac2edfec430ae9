/* explain: `cutune explain SPACE.lua` — Nsight Compute and compute-sanitizer on the top
 * configurations of a finished run (tuner/explain does the tools; this unit chooses what to
 * profile, prints the side-by-side table and keeps the results beside the store). */
#ifndef CUTUNE_CLI_EXPLAIN_H
#define CUTUNE_CLI_EXPLAIN_H

#include "base/util.h"

/* Exit statuses (documented in --help and docs/EXPLAIN.md). */
#define EXPLAIN_EXIT_NO_NCU 3  /* ncu missing, or it cannot read the performance counters here */
#define EXPLAIN_EXIT_FLAGGED 4 /* --sanitize flagged at least one configuration */

int explain_main(int argc, char **argv);

/* The store of a space: store_path when given, else the one results_dir/<any>/<space>.jsonl
 * (an error names how many there are when not exactly one). Caller frees. */
struct space;
char *explain_find_store(const char *results_dir, const char *store_path, const struct space *s, cterr *err);

#endif
