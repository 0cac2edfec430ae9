/* strat_ga: a steady-state, constraint-aware genetic algorithm.
 *
 * The population is the ga_pop best distinct configurations told so far (all results count,
 * also those of other bandit arms). Each child: two parents by binary tournament, uniform or
 * single-point crossover, per-gene mutation (mostly to an adjacent value), then repair: an
 * invalid or already proposed child becomes the nearest free valid configuration (Hamming
 * distance 1, then 2), so the GA never leaves the constrained space nor repeats itself. */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  size_t *pop; /* indices, best first */
  int npop;
  size_t ntold_seen; /* s->ntold when pop was last rebuilt */
} ga_state;

static int ga_init(strategy *s, cterr *err) {
  ga_state *g = xcalloc(1, sizeof *g);
  g->pop = xmalloc((size_t)s->o.ga_pop * sizeof(size_t));
  s->impl = g;
  return 0;
}

/* Rebuild the population: the ga_pop best told (finite) configurations, by insertion. */
static void ga_rebuild(strategy *s, ga_state *g) {
  if (g->ntold_seen == s->ntold) return;
  g->npop = 0;
  int cap = s->o.ga_pop;
  for (size_t k = 0; k < s->ntold; k++) {
    size_t i = s->told[k];
    double v = s->val[i];
    if (!isfinite(v)) continue;
    int pos = g->npop;
    while (pos > 0 && s->val[g->pop[pos - 1]] > v) pos--;
    if (pos >= cap) continue;
    int last = g->npop < cap ? g->npop : cap - 1;
    memmove(g->pop + pos + 1, g->pop + pos, (size_t)(last - pos) * sizeof(size_t));
    g->pop[pos] = i;
    if (g->npop < cap) g->npop++;
  }
  g->ntold_seen = s->ntold;
}

static size_t tournament(strategy *s, ga_state *g) {
  int a = (int)rng_below(&s->r, (uint64_t)g->npop), b = (int)rng_below(&s->r, (uint64_t)g->npop);
  return g->pop[a < b ? a : b]; /* pop is sorted: the lower position is the fitter */
}

static long ga_ask(strategy *s) {
  ga_state *g = s->impl;
  ga_rebuild(s, g);
  if (g->npop < (s->o.ga_pop < 4 ? s->o.ga_pop : 4) || g->npop < 2) return st_random_free(s);
  int np = s->np;
  uint16_t a[CS_MAX_PARAMS], b[CS_MAX_PARAMS], c[CS_MAX_PARAMS];
  for (int attempt = 0; attempt < 8; attempt++) {
    size_t pa = tournament(s, g), pb = tournament(s, g);
    for (int t = 0; pb == pa && t < 4; t++) pb = tournament(s, g);
    st_row(s, pa, a), st_row(s, pb, b);
    if (rng_below(&s->r, 2)) {
      for (int p = 0; p < np; p++) c[p] = rng_below(&s->r, 2) ? a[p] : b[p];
    } else {
      int cut = np > 1 ? 1 + (int)rng_below(&s->r, (uint64_t)(np - 1)) : 0;
      for (int p = 0; p < np; p++) c[p] = p < cut ? a[p] : b[p];
    }
    double pm = 1.0 / np;
    for (int p = 0; p < np; p++) {
      int nv = configset_param(s->cs, p)->nvalues;
      if (nv < 2 || rng_uniform(&s->r) >= pm) continue;
      if (rng_below(&s->r, 10) < 7) { /* small step: an adjacent value */
        int v = (int)c[p] + (rng_below(&s->r, 2) ? 1 : -1);
        if (v < 0) v = 1;
        if (v >= nv) v = nv - 2;
        c[p] = (uint16_t)v;
      } else {
        c[p] = (uint16_t)rng_below(&s->r, (uint64_t)nv);
      }
    }
    long j = configset_find(s->cs, c);
    if (j >= 0 && !s->prop[j]) return j;
    if (attempt == 7) return st_repair(s, c);
  }
  return st_random_free(s);
}

static void ga_free(strategy *s) {
  ga_state *g = s->impl;
  free(g->pop), free(g);
}

const strategy_ops strat_ga_ops = {"ga", ga_init, ga_ask, NULL, ga_free, NULL};
