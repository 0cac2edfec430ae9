/* driver: the synchronous search loop — ask a strategy, evaluate, tell, until a budget is
 * spent. Used by the replay backend and the scoreboard; a real GPU run can use it too.
 * With budget.batch = N it asks N configurations at once, evaluates them all, then tells all
 * N (what N devices working in lockstep see); N <= 1 is one at a time.
 *
 * A configuration the lookup callback already knows (a store holding it) is told to the
 * strategy without charging the budget. Every charged evaluation counts, failed ones too; the
 * outcome records the best-so-far after each charged evaluation.
 * Ownership: search_outcome's arrays are owned by it (search_outcome_free). */
#ifndef CUTUNE_DRIVER_H
#define CUTUNE_DRIVER_H

#include <stddef.h>

#include "store/record.h"
#include "strategy.h"
#include "base/util.h"

typedef struct search_budget {
  long evals;     /* charged evaluations at most; <= 0: no limit */
  double seconds; /* summed evaluation cost at most; <= 0: no limit */
  int batch;      /* configurations asked (and evaluated) before they are told; <= 1: one */
  long patience;  /* stop once this many charged evaluations in a row have not improved the best
                   * by TRANSFER_IMPROVE (search/transfer.h; a seeded search); <= 0: never */
} search_budget;

/* Measure configuration idx: *value (lower is better; INFINITY if it failed), *cost_seconds
 * (what it cost: compile + measure), *status. Return 0, or -1 with err filled to stop the run. */
typedef int (*search_eval_fn)(void *ctx, size_t idx, double *value, double *cost_seconds, rec_status *status,
                              cterr *err);
/* Already measured? Return 1 and fill *value, else 0. */
typedef int (*search_lookup_fn)(void *ctx, size_t idx, double *value);

typedef struct search_outcome {
  long evals;          /* charged evaluations */
  long looked_up;      /* answered by the lookup, not charged */
  long failed;         /* charged evaluations that failed */
  double seconds;      /* summed cost of the charged evaluations */
  long best_idx;       /* -1 if nothing succeeded */
  double best;         /* INFINITY if nothing succeeded */
  double *curve;       /* curve[k]: best value after k+1 charged evaluations (INFINITY before any success) */
  long *curve_idx;     /* the configuration holding it (-1 before any success) */
  double *curve_s;     /* curve_s[k]: summed cost (seconds) after k+1 charged evaluations */
  double *step_cpu;    /* step_cpu[k]: CPU seconds the strategy spent (ask + tell) on evaluation k+1 */
  double strategy_cpu; /* CPU seconds in strategy_ask and strategy_tell, all of them */
  long ncurve, cap;
} search_outcome;

int search_run(strategy *s, const search_budget *budget, search_eval_fn eval, search_lookup_fn lookup, void *ctx,
               search_outcome *out, cterr *err);
void search_outcome_free(search_outcome *o);

#endif
