/* strategy: search strategies over the valid configurations of a configset, behind one small
 * ask/tell interface.
 *
 *   strategy_ask proposes configurations (row indices of the configset) never proposed before;
 *   strategy_tell reports a measured value (lower is better; INFINITY = the configuration
 *   failed). Tells may arrive in any order, for any configuration (also ones the strategy
 *   did not propose: results already in a store), and a strategy learns from all of them.
 *
 * Every strategy is seeded and deterministic under its seed, proposes only valid rows of the
 * configset and never the same row twice. Names: exhaustive, random, ils, ga, anneal, bo,
 * bandit (an AUC-credit bandit over several of the others), hybrid (BO-led, with GA/ILS joining
 * when BO stalls; the default for spaces too large to exhaust within the budget).
 *
 * Batches: strategy_ask(s, out, max) with max > 1 proposes max configurations before any of
 * them is told (several devices). BO keeps its pending proposals in the model at the value it
 * predicted (kriging believer), so a batch spreads out; GA and the walkers are batched as they
 * are. Under one seed the sequence of asks and tells determines the proposals.
 *
 * Ownership: the strategy borrows the configset (it must outlive the strategy) and owns
 * everything else; strategy_free(NULL) does nothing. */
#ifndef CUTUNE_STRATEGY_H
#define CUTUNE_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include "space/configset.h"
#include "base/util.h"

typedef struct strategy strategy;

/* Tuning knobs. Zero (or NULL) in any field means "the default"; strategy_new(..., NULL, ...)
 * takes every default. The defaults are one setting for all spaces, not tuned per space. */
typedef struct strategy_opts {
  long budget_hint;  /* expected number of evaluations (annealing schedule); default 200 */
  const char *arms;  /* bandit: comma-separated arm names; default "ga,bo" */
  double bandit_c;   /* bandit: weight of the exploration bonus; default 0.05 */
  int bandit_window; /* bandit: credits remembered per arm; default 50 */
  int ga_pop;        /* ga: population size; default 10 */
  int bo_init;       /* bo: initial random design; default 10 */
  int bo_candidates; /* bo: random candidate pool size; default 1500 */
  double bo_xi;      /* bo: exploration offset of expected improvement (standardised units); default 0.01 */
  int bo_design;     /* bo: initial design point = the most distant of this many random ones; 1 = random; default 20 */
  const char *hybrid_arm; /* hybrid: exploitation arms beside bo, taking turns; default "ils,ga" */
  int hybrid_patience;    /* hybrid: results without improvement before they join; default 5 */
  int hybrid_min;         /* hybrid: evaluations before it may join; default 20 */
  double
      hybrid_ramp; /* hybrid: their share (0.5 at the stall) grows by this per patience further stale results; default 0.5 */
  double hybrid_max; /* hybrid: their share at most; default 0.8 */
  int hybrid_credit; /* hybrid: 0 = the credit share on (default), -1 = off (the stall ramp alone) */
  double hybrid_credit_min, hybrid_credit_max; /* hybrid: bounds of the credit share; default 0.1, 0.5 */
  double hybrid_decay;                         /* hybrid: credit decay per told result; default 0.97 */
  int cost_aware; /* bo (and bo inside bandit/hybrid): use the told costs (strategy_tell_cost) in the
                     * acquisition, expected improvement per predicted second; 0 = off (default), 1 = on.
                     * For budgets in seconds (cutune score --cost time, cutune run --time). */
} strategy_opts;

/* Fill o with the defaults (explicit values, so callers can print or adjust them). */
void strategy_opts_default(strategy_opts *o);

int strategy_new(const char *name, const configset *cs, uint64_t seed, const strategy_opts *opts, strategy **out,
                 cterr *err);
/* Up to max configuration indices not proposed before; returns how many (0 = nothing left). */
int strategy_ask(strategy *s, size_t *out, int max);
/* A measured value for configuration idx: lower is better, INFINITY when it failed. */
void strategy_tell(strategy *s, size_t idx, double value);
/* The same, with what the evaluation cost in seconds (compile + measuring); cost NAN or <= 0 =
 * unknown (then it is strategy_tell). Every strategy records the cost; `bo` with cost_aware
 * models log cost beside log time and prefers configurations predicted cheap. */
void strategy_tell_cost(strategy *s, size_t idx, double value, double cost_seconds);
void strategy_free(strategy *s);
/* Seeds: configurations proposed first, in this order, before any choice of the strategy's own
 * (one already proposed is skipped); told like any other, so the strategy learns from them (a
 * new shape's search seeded with the winners of the shapes tuned before it: transfer.h). With
 * only set, nothing else is proposed: strategy_ask gives the seeds, then 0 (a fixed list). A
 * later call adds to the list. */
void strategy_seed(strategy *s, const size_t *idx, size_t n, int only);
/* Seeds handed out by strategy_ask and not told yet (a caller that wants them measured before
 * the strategy chooses waits for 0), and seeds not handed out yet. */
size_t strategy_seeds_pending(const strategy *s);
size_t strategy_seeds_left(const strategy *s);

const char *strategy_name(const strategy *s);
/* NULL-terminated list of every strategy name. */
const char *const *strategy_names(void);
/* "exhaustive" when budget (evaluations) covers the space, else "hybrid"; budget < 0 = unknown. */
const char *strategy_default_name(size_t space_count, long budget);
/* One line of human-readable internals (the bandit: uses and credits per arm); "" if none. */
void strategy_summary(const strategy *s, dbuf *out);

#endif
