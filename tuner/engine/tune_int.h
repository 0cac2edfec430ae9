/* tune_int.h: what the units of the tuning loop share (tune.c: the loop, the cross-measurement,
 * how many problems go side by side; tune_phases.c, which tune.c calls and which calls nothing
 * of it: provenance, the store's answers, the problems' setup, the energy pass, the final
 * tables). Private to tuner/engine/tune*.c. */
#ifndef CUTUNE_TUNE_INT_H
#define CUTUNE_TUNE_INT_H

#include <signal.h>
#include <stddef.h>

#include "exec.h"
#include "shapes.h"
#include "tune.h"
#include "store/store.h"

/* One model group of the run: its store, its options hashes, its search. */
typedef struct tune_group {
  store *st;
  char *spath;
  job_ohashes *ohash; /* options hash of each configuration for this group's arch (resume key) */
  const char *arch;
  char label[192]; /* "" with one group, else " on <model>" */
} tune_group;

typedef struct tune_ctx {
  space *s;
  const run_opts *o;
  exec *x;
  const compile_source *src; /* the template and its includes, hashed once */
  char template_hash[33];
  char (*check_hash)[33]; /* each problem's (job_check_hashes): with the two hashes, a record's answer */
  job_lhashes *lhash;     /* each (configuration, problem)'s launch hash, as lookups need them */
  /* records of this run whose space's own code failed (space_error), the first one's message,
   * and how many others it made; space_stop: the first JOB_SPACE_STOP all failed so, and the
   * run stops handing out configurations */
  size_t nspace_errors, nothers;
  char *first_space_error;
  int space_stop;
  tune_group grp[EXEC_MAX_GROUPS];
  /* shape sets (shapes.h): each group's book of the shapes' best kernels, whether a search is
   * seeded from it (transfer), the cross phase's fixed list per group, the last problem's cost */
  shape_book *book[EXEC_MAX_GROUPS];
  int transfer;
  const size_t *only[EXEC_MAX_GROUPS];
  size_t nonly[EXEC_MAX_GROUPS];
  shape_cost cost[EXEC_MAX_GROUPS];
} tune_ctx;

/* set by SIGINT while run_tune runs (tune_phases.c holds it): every loop ends at its next
 * configuration */
extern volatile sig_atomic_t tune_interrupted;

/* The one place a record's provenance is completed. */
void tune_stamp(tune_ctx *t, int g, int prob, record *r, size_t cfg);
/* The store's newest record of configuration cfg of group g on problem prob, or NULL. */
const record *tune_stored(const tune_ctx *t, int g, int prob, size_t cfg, size_t *ntimeouts);
/* The same, or a newer space_error record of it (never an answer: the run's tables list it). */
const record *tune_latest(const tune_ctx *t, int g, int prob, size_t cfg);

/* tune_phases.c */
int tune_wants_energy(const space *s);
int tune_energy_pass(tune_ctx *t, int g, int prob, size_t *n_measured, cterr *err);
void tune_report_problem(tune_ctx *t, int g, int prob, run_outcome *out, int print);
int tune_setup_problems(tune_ctx *t, const int *probs, int n, int quiet, cterr *err);

#endif
