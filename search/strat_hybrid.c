/* strat_hybrid: BO-led search with exploitation arms that only join while BO stalls (the
 * default strategy for spaces larger than the budget).
 *
 * The lead arm is `bo`, seeded with the hybrid's own seed, so until the first exploitation
 * proposal the hybrid proposes exactly what `bo` alone would. Once `hybrid_patience` (P)
 * results in a row (from `hybrid_min` evaluations on) have not improved the best, the
 * exploitation arms (`hybrid_arm`, default "ils,ga", taking turns: a neighbour walk from the
 * best, and crossover of the best configurations found) get a share of the proposals: half at
 * first, `hybrid_ramp` more for every P further results without improvement, at most
 * `hybrid_max` (0.5 + 0.5 per P, at most 0.8: the longer BO stalls, the more it is
 * exploitation), until a result improves the best again and it is all BO. Every arm learns from every result; they share one proposed-set, so nothing
 * is proposed twice. Settings chosen on a tuning split of the shared caches (docs/SEARCH.md). */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HY_ARMS 4

typedef struct {
  strategy *arm[HY_ARMS]; /* 0: bo, then the exploitation arms */
  int narms;
  int8_t *owner;    /* arm that proposed each row, -1 none */
  long stale;       /* results since the best last improved */
  double best_seen;
  long uses[HY_ARMS], wins[HY_ARMS];
  long turn;
  int patience, min_evals;
  double acc;        /* exploitation share accumulated: a proposal is theirs each time it reaches 1 */
  double ramp, xmax; /* share growth per `patience` further stale results, and its cap */
} hybrid_state;

static void hybrid_free(strategy *s) {
  hybrid_state *h = s->impl;
  if (!h) return;
  for (int a = 0; a < h->narms; a++) strategy_free(h->arm[a]);
  free(h->owner), free(h);
}

static int hybrid_init(strategy *s, cterr *err) {
  hybrid_state *h = xcalloc(1, sizeof *h);
  s->impl = h;
  h->best_seen = INFINITY;
  h->owner = xmalloc(s->n);
  memset(h->owner, 0xff, s->n);
  h->patience = s->o.hybrid_patience;
  h->min_evals = s->o.hybrid_min;
  h->ramp = s->o.hybrid_ramp;
  h->xmax = s->o.hybrid_max;
  if (strategy_new_shared("bo", s->cs, s->seed, &s->o, s->prop, s->nprop, &h->arm[0], err) < 0)
    return cterr_wrap(err, "hybrid arm");
  h->narms = 1;
  char *list = xstrdup(s->o.hybrid_arm), *save = NULL;
  for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (!strcmp(tok, "bandit") || !strcmp(tok, "hybrid") || h->narms == HY_ARMS) {
      cterr_set(err, "hybrid: at most %d single strategies as exploitation arms (got '%s')", HY_ARMS - 1,
                s->o.hybrid_arm);
      free(list);
      return -1;
    }
    uint64_t seed = s->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)h->narms);
    if (strategy_new_shared(tok, s->cs, seed, &s->o, s->prop, s->nprop, &h->arm[h->narms], err) < 0) {
      free(list);
      return cterr_wrap(err, "hybrid arm");
    }
    h->narms++;
  }
  free(list);
  if (h->narms < 2) return cterr_set(err, "hybrid: no exploitation arm given");
  return 0;
}

static long hybrid_ask(strategy *s) {
  hybrid_state *h = s->impl;
  int first = 0;
  if ((long)s->ntold >= h->min_evals && h->stale >= h->patience) {
    /* half of the proposals at the first stall, more the longer it lasts */
    double f = 0.5 + h->ramp * (double)(h->stale - h->patience) / h->patience;
    h->acc += f < h->xmax ? f : h->xmax;
    if (h->acc >= 1.0 - 1e-9) {
      h->acc -= 1.0;
      long t = h->turn++;
      first = 1 + (int)(t % (h->narms - 1));
    }
  }
  for (int k = 0; k < h->narms; k++) {
    int a = (first + k) % h->narms;
    long i = h->arm[a]->ops->ask1(h->arm[a]);
    if (i < 0 || s->prop[i]) continue;
    h->arm[a]->mine[i] = 1;
    h->owner[i] = (int8_t)a;
    h->uses[a]++;
    return i;
  }
  return -1;
}

static void hybrid_tell(strategy *s, size_t idx, double v, int mine) {
  hybrid_state *h = s->impl;
  (void)mine;
  if (v < h->best_seen) {
    if (h->owner[idx] >= 0) h->wins[h->owner[idx]]++;
    h->best_seen = v, h->stale = 0;
  } else {
    h->stale++;
  }
  h->owner[idx] = -1;
  for (int a = 0; a < h->narms; a++) strategy_tell_cost(h->arm[a], idx, v, s->cost[idx]);
}

static void hybrid_summary(const strategy *s, dbuf *out) {
  const hybrid_state *h = s->impl;
  for (int a = 0; a < h->narms; a++)
    dbuf_printf(out, "%s%s: %ld uses, %ld improvements", a ? "; " : "", h->arm[a]->ops->name, h->uses[a], h->wins[a]);
}

const strategy_ops strat_hybrid_ops = {"hybrid", hybrid_init, hybrid_ask, hybrid_tell, hybrid_free, hybrid_summary};
