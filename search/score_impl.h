/* score_impl: what score.c (per-file scoring) and score_main.c (command, table, SVG) share. */
#ifndef CUTUNE_SCORE_IMPL_H
#define CUTUNE_SCORE_IMPL_H

#include <stdint.h>

#include "strategy.h"
#include "base/util.h"

#define SCORE_BMAX 2000
#define SCORE_MAXSTRAT 16
#define SCORE_NFRAC 4
extern const int score_frac_at[SCORE_NFRAC]; /* 25, 50, 100, 200 */

typedef struct score_cfg {
  const char *strat[SCORE_MAXSTRAT];
  int nstrat;
  int repeats, budget_min, budget_max;
  uint64_t seed;
  int noisy;
  int batch;       /* asked and evaluated before told (1 = sequential) */
  int cost_time;   /* budgets in seconds of recorded cost, not in evaluations */
  int profile;     /* print the strategies' CPU time per proposal */
  const char *csv; /* where the per-budget mean scores go (NULL: nowhere) */
  strategy_opts opts;
} score_cfg;

typedef struct score_result {
  /* [b]: score at budget b (1..budget_max): b evaluations, or with cost_time b times the
   * space's mean evaluation cost in seconds */
  double score[SCORE_BMAX + 1];
  double cpu[SCORE_BMAX + 1]; /* [b]: mean CPU seconds of the strategy on evaluation b */
  double frac[SCORE_NFRAC];   /* mean optimum / best found at 25, 50, 100, 200 evaluations */
  double seconds;             /* time spent on this strategy and file */
  double budget_s;            /* cost_time: the budget in seconds (budget_max mean costs) */
  double evals;               /* mean evaluations spent per repeat */
} score_result;

int score_file(const char *path, const score_cfg *cfg, score_result *res, cterr *err);

#endif
