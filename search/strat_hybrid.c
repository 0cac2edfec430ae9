/* strat_hybrid: BO-led search with exploitation arms that join while BO stalls or while they
 * earn more per proposal than BO (the default strategy for spaces larger than the budget).
 *
 * The lead arm is `bo`, seeded with the hybrid's own seed, so until the first exploitation
 * proposal the hybrid proposes exactly what `bo` alone would. From `hybrid_min` evaluations on
 * the exploitation arms (`hybrid_arm`, default "ils,ga", taking turns: a neighbour walk from the
 * best, and crossover of the best configurations found) get a share of the proposals, the
 * larger of two:
 *   - the stall ramp: once `hybrid_patience` (P) results in a row have not improved the best,
 *     half at first, `hybrid_ramp` more for every P further results without improvement, at
 *     most `hybrid_max` (0.5 + 0.5 per P, at most 0.8), until a result improves the best again;
 *   - the credit share: each side (BO; the exploitation arms together) is credited with what its
 *     proposals gained, log(best before / value) when a result improves the best, per proposal,
 *     both decayed by `hybrid_decay` per result (recent evidence counts); the exploitation
 *     share is their rate over the sum of both rates, between `hybrid_credit_min` and
 *     `hybrid_credit_max` (0.1 .. 0.5). Before the exploitation arms have been tried their rate is
 *     assumed half of the overall one, so they start at a third (hybrid_credit_share()).
 * Interleaved deterministically (an accumulator, not a coin), so the proposals are a function of
 * the seed and the told values, also in batches. Every arm learns from every result; they share
 * one proposed-set, so nothing is proposed twice. Settings chosen on a tuning split of the shared
 * caches (docs/SEARCH.md). */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HY_ARMS 4

typedef struct {
  strategy *arm[HY_ARMS]; /* 0: bo, then the exploitation arms */
  int narms;
  int8_t *owner; /* arm that proposed each row, -1 none */
  long stale;    /* results since the best last improved */
  double best_seen;
  long uses[HY_ARMS], wins[HY_ARMS];
  long turn;
  int patience, min_evals;
  double acc;        /* exploitation share accumulated: a proposal is theirs each time it reaches 1 */
  double ramp, xmax; /* share growth per `patience` further stale results, and its cap */
  int credit;        /* credit share on */
  double cmin, cmax, decay;
  double u[2], g[2]; /* decayed proposals told and log-time gains: [0] bo, [1] the exploitation arms */
} hybrid_state;

/* Prior of the exploitation arms' rate, as a fraction of the overall rate, and its weight in
 * proposals: untried, they are assumed half as good as the run so far, worth 3 proposals. */
#define HY_PRIOR 0.5
#define HY_PSEUDO 3.0

double hybrid_credit_share(const double u[2], const double g[2], double lo, double hi) {
  double ut = u[0] + u[1], r0 = ut > 0 ? (g[0] + g[1]) / ut : 0;
  double rx = (g[1] + HY_PSEUDO * HY_PRIOR * r0) / (u[1] + HY_PSEUDO);
  double rb = (g[0] + HY_PSEUDO * r0) / (u[0] + HY_PSEUDO);
  double f = rx + rb > 0 ? rx / (rx + rb) : HY_PRIOR / (1 + HY_PRIOR);
  return f < lo ? lo : f > hi ? hi : f;
}

static void hybrid_free(strategy *s) {
  hybrid_state *h = s->impl;
  if (!h) return;
  for (int a = 0; a < h->narms; a++) strategy_free(h->arm[a]);
  free(h->owner), free(h);
}

/* Exploitation arm k's seed (arm 0 is BO, on the hybrid's own seed). */
static uint64_t arm_seed(strategy *s, int k) { return s->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)k); }

static int hybrid_init(strategy *s, cterr *err) {
  hybrid_state *h = xcalloc(1, sizeof *h);
  s->impl = h;
  h->best_seen = INFINITY;
  h->owner = strategy_arm_owners(s);
  h->patience = s->o.hybrid_patience;
  h->min_evals = s->o.hybrid_min;
  h->ramp = s->o.hybrid_ramp;
  h->xmax = s->o.hybrid_max;
  h->credit = s->o.hybrid_credit >= 0;
  h->cmin = s->o.hybrid_credit_min;
  h->cmax = s->o.hybrid_credit_max;
  h->decay = s->o.hybrid_decay;
  if (strategy_new_shared("bo", s->cs, s->seed, &s->o, s->prop, s->nprop, &h->arm[0], err) < 0)
    return cterr_wrap(err, "hybrid arm");
  h->narms = 1;
  if (strategy_new_arms(s, "hybrid", s->o.hybrid_arm, h->arm, &h->narms, HY_ARMS, arm_seed, err) < 0) return -1;
  if (h->narms < 2) return cterr_set(err, "hybrid: no exploitation arm given");
  return 0;
}

static long hybrid_ask(strategy *s) {
  hybrid_state *h = s->impl;
  int first = 0;
  if ((long)s->ntold >= h->min_evals) {
    double f = 0;
    if (h->stale >= h->patience) { /* half of the proposals at the first stall, more the longer it lasts */
      f = 0.5 + h->ramp * (double)(h->stale - h->patience) / h->patience;
      if (f > h->xmax) f = h->xmax;
    }
    if (h->credit) { /* and never less than their measured gain per proposal earns */
      double fc = hybrid_credit_share(h->u, h->g, h->cmin, h->cmax);
      if (fc > f) f = fc;
    }
    h->acc += f;
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
  if (h->owner[idx] >= 0) { /* credit: gain in log time of the best, per proposal, decayed */
    int side = h->owner[idx] > 0;
    for (int k = 0; k < 2; k++) h->u[k] *= h->decay, h->g[k] *= h->decay;
    h->u[side] += 1;
    if (v < h->best_seen && v > 0 && isfinite(h->best_seen)) h->g[side] += log(h->best_seen / v);
  }
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
