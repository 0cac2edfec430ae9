/* strat_bandit: an ensemble of strategies chosen per proposal by a multi-armed bandit with
 * area-under-curve credit assignment, in the manner of OpenTuner's AUCBanditMetaTechnique.
 *
 * Each arm keeps a window of its most recent proposals: 1 when the proposal improved on the
 * best value known when it was told, else 0. Its score is the AUC of that history (recent
 * entries weigh more: sum of position * credit / (w(w+1)/2)) plus c * sqrt(2 ln(total)/uses);
 * an arm never used goes first. All arms share one proposed-set (no duplicates across arms)
 * and every result is told to every arm, so each learns from the others' measurements. */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARMS 8

typedef struct {
  int narms;
  strategy *arm[MAX_ARMS];
  uint8_t *hist[MAX_ARMS]; /* ring of the last `window` credits */
  int hlen[MAX_ARMS], hpos[MAX_ARMS];
  long uses[MAX_ARMS], credits[MAX_ARMS];
  long total;
  double best_seen; /* best value told before the current tell */
  int8_t *owner;    /* arm that proposed each row, -1 none */
} bandit_state;

static void bandit_free(strategy *s) {
  bandit_state *b = s->impl;
  if (!b) return;
  for (int a = 0; a < b->narms; a++) strategy_free(b->arm[a]), free(b->hist[a]);
  free(b->owner), free(b);
}

/* Each arm's seed: the next draw of the bandit's own generator. */
static uint64_t arm_seed(strategy *s, int k) {
  (void)k;
  return rng_next(&s->r);
}

static int bandit_init(strategy *s, cterr *err) {
  bandit_state *b = xcalloc(1, sizeof *b);
  s->impl = b;
  b->best_seen = INFINITY;
  b->owner = strategy_arm_owners(s);
  if (strategy_new_arms(s, "bandit", s->o.arms, b->arm, &b->narms, MAX_ARMS, arm_seed, err) < 0) return -1;
  for (int a = 0; a < b->narms; a++) b->hist[a] = xcalloc((size_t)s->o.bandit_window, 1);
  if (!b->narms) return cterr_set(err, "no arms given (expected names like \"ils,ga,bo\")");
  return 0;
}

static double arm_score(const strategy *s, const bandit_state *b, int a) {
  int w = b->hlen[a], W = s->o.bandit_window;
  double auc = 0;
  /* oldest first: position 1 .. w, the newest weighs most */
  for (int k = 0; k < w; k++) {
    int slot = (b->hpos[a] - w + k + W) % W;
    if (b->hist[a][slot]) auc += k + 1;
  }
  if (w) auc = auc * 2.0 / ((double)w * (w + 1));
  return auc + s->o.bandit_c * sqrt(2.0 * log((double)b->total) / (double)b->uses[a]);
}

static long bandit_ask(strategy *s) {
  bandit_state *b = s->impl;
  uint8_t tried[MAX_ARMS] = {0};
  for (int round = 0; round < b->narms; round++) {
    int pick = -1;
    double best = -INFINITY;
    for (int a = 0; a < b->narms; a++) {
      if (tried[a]) continue;
      if (!b->uses[a]) {
        pick = a;
        break;
      }
      double sc = arm_score(s, b, a);
      if (sc > best) best = sc, pick = a;
    }
    tried[pick] = 1;
    long i = b->arm[pick]->ops->ask1(b->arm[pick]);
    if (i < 0 || s->prop[i]) continue; /* the arm has nothing new: ask the next one */
    b->arm[pick]->mine[i] = 1;
    b->owner[i] = (int8_t)pick;
    b->uses[pick]++, b->total++;
    return i;
  }
  return -1;
}

static void bandit_tell(strategy *s, size_t idx, double v, int mine) {
  bandit_state *b = s->impl;
  int a = b->owner[idx];
  if (a >= 0 && mine) {
    int improved = isfinite(v) && v < b->best_seen;
    int W = s->o.bandit_window;
    b->hist[a][b->hpos[a]] = (uint8_t)improved;
    b->hpos[a] = (b->hpos[a] + 1) % W;
    if (b->hlen[a] < W) b->hlen[a]++;
    b->credits[a] += improved;
    b->owner[idx] = -1; /* credit once */
  }
  if (v < b->best_seen) b->best_seen = v;
  for (int k = 0; k < b->narms; k++) strategy_tell_cost(b->arm[k], idx, v, s->cost[idx]);
}

static void bandit_summary(const strategy *s, dbuf *out) {
  const bandit_state *b = s->impl;
  for (int a = 0; a < b->narms; a++)
    dbuf_printf(out, "%s%s: %ld uses, %ld improvements", a ? "; " : "", b->arm[a]->ops->name, b->uses[a],
                b->credits[a]);
}

const strategy_ops strat_bandit_ops = {"bandit", bandit_init, bandit_ask, bandit_tell, bandit_free, bandit_summary};
