/* strategy_impl: what the strategy implementations share (internal to search/).
 *
 * The base struct keeps the bookkeeping every strategy needs: the proposed-set (shared
 * between the bandit and its arms, so duplicates are avoided globally), which rows this
 * strategy itself proposed, every told value and the best so far. An implementation fills a
 * strategy_ops table; strategy.c dispatches to it. */
#ifndef CUTUNE_STRATEGY_IMPL_H
#define CUTUNE_STRATEGY_IMPL_H

#include "strategy.h"

typedef struct strategy_ops {
  const char *name;
  int (*init)(strategy *s, cterr *err);
  long (*ask1)(strategy *s);                                 /* one new index, -1 if none */
  void (*tell)(strategy *s, size_t idx, double v, int mine); /* after the base recorded it */
  void (*free)(strategy *s);
  void (*summary)(const strategy *s, dbuf *out); /* may be NULL */
} strategy_ops;

struct strategy {
  const strategy_ops *ops;
  const configset *cs;
  size_t n;
  int np;
  rng r;
  uint64_t seed; /* the seed it was created with (a composite seeds its lead arm with it) */
  strategy_opts o;
  uint8_t *prop; /* proposed, by anyone sharing it */
  size_t *nprop;
  uint8_t *own_prop; /* non-NULL when this strategy owns prop/nprop */
  size_t own_nprop;
  uint8_t *mine; /* proposed by this strategy */
  double *val;   /* told values; NAN = not told */
  size_t *told;  /* told indices in order */
  size_t ntold;
  double *cost;  /* told costs in seconds; NAN = not told */
  size_t ncost;  /* how many rows have a told cost */
  long best_idx; /* -1 until a finite value is told */
  double best;
  size_t *seeds; /* strategy_seed: proposed first, in order */
  size_t nseeds, seed_next;
  int seed_only; /* nothing but the seeds */
  void *impl;
};

/* Create a strategy whose proposed-set is shared (the bandit's arms). prop/nprop NULL: own. */
int strategy_new_shared(const char *name, const configset *cs, uint64_t seed, const strategy_opts *o, uint8_t *prop,
                        size_t *nprop, strategy **out, cterr *err);

/* The arms of a meta-strategy s (bandit, hybrid) from a list of names ("ils,ga"): one strategy
 * per name, each sharing s's proposed-set, arm k seeded by seed_of(s, k), appended to
 * arms[*n..max-1]. A name that is itself a meta-strategy, or more than max arms, is an error that
 * names who and the list. */
int strategy_new_arms(strategy *s, const char *who, const char *list, strategy **arms, int *n, int max,
                      uint64_t (*seed_of)(strategy *s, int k), cterr *err);
/* Which arm proposed each row of s: s->n entries, all -1 (none) to start. Caller frees. */
int8_t *strategy_arm_owners(const strategy *s);

static inline int st_free(const strategy *s, size_t i) { return !s->prop[i]; }
/* A uniformly random row not proposed yet, or -1 when every row has been. */
long st_random_free(strategy *s);
/* Neighbours of row i (kind) that are not proposed yet; returns how many written (<= max). */
size_t st_free_neighbours(strategy *s, size_t i, cs_neighbour_kind kind, size_t *out, size_t max);
/* Row i of the configset copied into row[]. */
void st_row(const strategy *s, size_t i, uint16_t *row);
/* A valid, not yet proposed row near row[] (which may be invalid): itself if free, else a random
 * free row at Hamming distance 1, then 2; else a random free row. -1 when nothing is left. */
long st_repair(strategy *s, const uint16_t *row);

/* The hybrid's credit share (strat_hybrid.c): the exploitation arms' share of the proposals from
 * the decayed proposals u[] and log-time gains g[] of BO ([0]) and of the exploitation arms
 * ([1]): their gain per proposal over the sum of both rates, the exploitation arms' rate pulled
 * towards half the overall one while they have few proposals; clamped to lo..hi. */
double hybrid_credit_share(const double u[2], const double g[2], double lo, double hi);

extern const strategy_ops strat_exhaustive_ops, strat_random_ops, strat_ils_ops, strat_anneal_ops, strat_ga_ops,
    strat_bo_ops, strat_bandit_ops, strat_hybrid_ops;

#endif
