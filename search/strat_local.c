/* strat_local: the two neighbourhood walkers, greedy iterated local search (ils) and
 * simulated annealing (anneal). Both move over Hamming neighbours (one parameter changed) of
 * the configset, so every step stays inside the valid, constrained space. */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>

#define NB_MAX 4096

/* ---- ils: first-improvement hill climbing; a random walk from the best local optimum (or,
 * now and then, a random restart) once every neighbour of the current point is spent. ---- */

typedef struct {
  long cur; /* current point, -1 while waiting for a (re)start to be told */
  double cur_val;
  int stale; /* own proposals since cur last improved */
  size_t nb[NB_MAX];
} ils_state;

/* Proposals without improvement before ILS perturbs even though neighbours remain: a
 * plateau of near-equal neighbours (a thread-count parameter) must not eat the budget. */
#define ILS_PATIENCE 15

static int ils_init(strategy *s, cterr *err) {
  ils_state *t = xcalloc(1, sizeof *t);
  t->cur = -1;
  s->impl = t;
  return 0;
}

/* A random walk of `steps` Hamming moves from row i, ending on a free row (or -1). */
static long random_walk(strategy *s, size_t i, int steps, size_t *nb) {
  size_t at = i;
  for (int k = 0; k < steps + 20; k++) {
    size_t n = configset_neighbours(s->cs, at, CS_HAMMING, nb, NB_MAX);
    if (n > NB_MAX) n = NB_MAX;
    if (!n) break;
    at = nb[rng_below(&s->r, n)];
    if (k + 1 >= steps && !s->prop[at]) return (long)at;
  }
  return -1;
}

static long ils_ask(strategy *s) {
  ils_state *t = s->impl;
  if (t->cur >= 0 && t->stale < ILS_PATIENCE) {
    t->stale++;
    /* adjacent values first: ordered parameters improve step by step; then the rest */
    size_t n = st_free_neighbours(s, (size_t)t->cur, CS_ADJACENT, t->nb, NB_MAX);
    if (!n) n = st_free_neighbours(s, (size_t)t->cur, CS_HAMMING, t->nb, NB_MAX);
    if (n) return (long)t->nb[rng_below(&s->r, n)];
  }
  /* stuck (or not started): perturb from the best point, restart at random 1 time in 3 */
  long j = -1;
  t->stale = 0;
  if (s->best_idx >= 0 && rng_below(&s->r, 3) != 0) {
    int steps = 2 + (int)rng_below(&s->r, (uint64_t)(s->np > 2 ? s->np / 2 : 1));
    j = random_walk(s, (size_t)s->best_idx, steps, t->nb);
  }
  if (j < 0) j = st_random_free(s);
  t->cur = -1;
  return j;
}

static void ils_tell(strategy *s, size_t idx, double v, int mine) {
  ils_state *t = s->impl;
  if (t->cur < 0 ? (mine || isfinite(v)) : v < t->cur_val) t->cur = (long)idx, t->cur_val = v, t->stale = 0;
}

static void local_free(strategy *s) { free(s->impl); }

const strategy_ops strat_ils_ops = {"ils", ils_init, ils_ask, ils_tell, local_free, NULL};

/* ---- anneal: Metropolis acceptance on log(time), temperature falling geometrically over
 * the expected budget, reheated when the walk is stuck. ---- */

typedef struct {
  long cur;
  double cur_val;
  double t, t0, t_end, alpha;
  size_t nb[NB_MAX];
} ann_state;

static int ann_init(strategy *s, cterr *err) {
  ann_state *a = xcalloc(1, sizeof *a);
  a->cur = -1;
  a->t0 = a->t = 0.5; /* accepts a 2x slower neighbour with p ~ 0.25 at the start */
  a->t_end = 0.01;
  a->alpha = pow(a->t_end / a->t0, 1.0 / (double)s->o.budget_hint);
  s->impl = a;
  return 0;
}

static long ann_ask(strategy *s) {
  ann_state *a = s->impl;
  if (a->cur >= 0) {
    /* mostly small steps (an adjacent value), sometimes any value of one parameter */
    size_t n = 0;
    if (rng_below(&s->r, 4) != 0) n = st_free_neighbours(s, (size_t)a->cur, CS_ADJACENT, a->nb, NB_MAX);
    if (!n) n = st_free_neighbours(s, (size_t)a->cur, CS_HAMMING, a->nb, NB_MAX);
    if (n) return (long)a->nb[rng_below(&s->r, n)];
  }
  /* stuck: restart from a walk near the best, reheated */
  long j = -1;
  if (s->best_idx >= 0) j = random_walk(s, (size_t)s->best_idx, 2, a->nb);
  if (j < 0) j = st_random_free(s);
  a->t = a->t0 * 0.5;
  a->cur = -1;
  return j;
}

static void ann_tell(strategy *s, size_t idx, double v, int mine) {
  ann_state *a = s->impl;
  if (a->cur < 0) {
    if (mine || isfinite(v)) a->cur = (long)idx, a->cur_val = v;
    return;
  }
  if (v < a->cur_val) {
    a->cur = (long)idx, a->cur_val = v;
  } else if (mine && isfinite(v) && v > 0 && a->cur_val > 0) {
    double d = log(v) - log(a->cur_val);
    if (rng_uniform(&s->r) < exp(-d / a->t)) a->cur = (long)idx, a->cur_val = v;
  }
  if (mine) a->t = fmax(a->t * a->alpha, a->t_end);
}

const strategy_ops strat_anneal_ops = {"anneal", ann_init, ann_ask, ann_tell, local_free, NULL};
