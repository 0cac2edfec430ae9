/* strategy: the shared base of every strategy (see strategy.h and strategy_impl.h), plus the
 * two strategies that need no model: exhaustive and random. */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const strategy_ops *const all_ops[] = {&strat_exhaustive_ops, &strat_random_ops, &strat_ils_ops,
                                              &strat_ga_ops,         &strat_anneal_ops, &strat_bo_ops,
                                              &strat_bandit_ops,     &strat_hybrid_ops, NULL};
static const char *const all_names[] = {"exhaustive", "random", "ils", "ga", "anneal", "bo", "bandit", "hybrid", NULL};

const char *const *strategy_names(void) { return all_names; }

const char *strategy_default_name(size_t space_count, long budget) {
  return (budget >= 0 && (size_t)budget >= space_count) ? "exhaustive" : "hybrid";
}

void strategy_opts_default(strategy_opts *o) {
  memset(o, 0, sizeof *o);
  o->budget_hint = 200;
  o->arms = "ga,bo";
  o->bandit_c = 0.05;
  o->bandit_window = 50;
  o->ga_pop = 10;
  o->bo_init = 10;
  o->bo_candidates = 1500;
  o->bo_xi = 0.01;
  o->bo_design = 20;
  o->hybrid_arm = "ils,ga";
  o->hybrid_patience = 5;
  o->hybrid_min = 20;
  o->hybrid_ramp = 0.5;
  o->hybrid_max = 0.8;
  o->hybrid_credit_min = 0.1;
  o->hybrid_credit_max = 0.5;
  o->hybrid_decay = 0.97;
}

static void opts_merge(strategy_opts *dst, const strategy_opts *src) {
  strategy_opts_default(dst);
  if (!src) return;
  if (src->budget_hint > 0) dst->budget_hint = src->budget_hint;
  if (src->arms && *src->arms) dst->arms = src->arms;
  if (src->bandit_c > 0) dst->bandit_c = src->bandit_c;
  if (src->bandit_window > 0) dst->bandit_window = src->bandit_window;
  if (src->ga_pop > 1) dst->ga_pop = src->ga_pop;
  if (src->bo_init > 0) dst->bo_init = src->bo_init;
  if (src->bo_candidates > 0) dst->bo_candidates = src->bo_candidates;
  if (src->bo_xi > 0) dst->bo_xi = src->bo_xi;
  if (src->bo_design > 0) dst->bo_design = src->bo_design;
  if (src->hybrid_arm && *src->hybrid_arm) dst->hybrid_arm = src->hybrid_arm;
  if (src->hybrid_patience > 0) dst->hybrid_patience = src->hybrid_patience;
  if (src->hybrid_min > 0) dst->hybrid_min = src->hybrid_min;
  if (src->hybrid_ramp > 0) dst->hybrid_ramp = src->hybrid_ramp;
  if (src->hybrid_max > 0) dst->hybrid_max = src->hybrid_max;
  if (src->hybrid_credit < 0) dst->hybrid_credit = -1;
  if (src->hybrid_credit_min > 0) dst->hybrid_credit_min = src->hybrid_credit_min;
  if (src->hybrid_credit_max > 0) dst->hybrid_credit_max = src->hybrid_credit_max;
  if (src->hybrid_decay > 0) dst->hybrid_decay = src->hybrid_decay;
  if (src->cost_aware > 0) dst->cost_aware = 1;
}

int strategy_new_arms(strategy *s, const char *who, const char *list, strategy **arms, int *n, int max,
                      uint64_t (*seed_of)(strategy *s, int k), cterr *err) {
  char *copy = xstrdup(list ? list : ""), *save = NULL;
  int rc = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
    if (!strcmp(tok, "bandit") || !strcmp(tok, "hybrid"))
      rc = cterr_set(err, "%s: '%s' cannot be an arm (an arm is a single strategy; got '%s')", who, tok, list);
    else if (*n == max) rc = cterr_set(err, "%s: at most %d arms (got '%s')", who, max, list);
    else if (strategy_new_shared(tok, s->cs, seed_of(s, *n), &s->o, s->prop, s->nprop, &arms[*n], err) < 0)
      rc = cterr_wrap(err, "%s arm", who);
    else (*n)++;
  }
  free(copy);
  return rc;
}

int8_t *strategy_arm_owners(const strategy *s) {
  int8_t *o = xmalloc(s->n ? s->n : 1);
  memset(o, 0xff, s->n);
  return o;
}

int strategy_new_shared(const char *name, const configset *cs, uint64_t seed, const strategy_opts *o, uint8_t *prop,
                        size_t *nprop, strategy **out, cterr *err) {
  *out = NULL;
  const strategy_ops *ops = NULL;
  for (int i = 0; all_ops[i]; i++)
    if (name && !strcmp(all_ops[i]->name, name)) ops = all_ops[i];
  if (!ops) {
    dbuf b;
    dbuf_init(&b);
    for (int i = 0; all_names[i]; i++) dbuf_printf(&b, "%s%s", i ? ", " : "", all_names[i]);
    cterr_set(err, "unknown strategy '%s' (expected one of: %s)", name ? name : "(null)", b.data);
    dbuf_free(&b);
    return -1;
  }
  if (!cs || configset_count(cs) == 0)
    return cterr_set(err, "strategy '%s': the space has no valid configuration", name);
  strategy *s = xcalloc(1, sizeof *s);
  s->ops = ops;
  s->cs = cs;
  s->n = configset_count(cs);
  s->np = configset_nparams(cs);
  rng_seed(&s->r, seed);
  s->seed = seed;
  opts_merge(&s->o, o);
  if (prop) {
    s->prop = prop, s->nprop = nprop;
  } else {
    s->own_prop = s->prop = xcalloc(s->n, 1);
    s->nprop = &s->own_nprop;
  }
  s->mine = xcalloc(s->n, 1);
  s->val = xmalloc(s->n * sizeof(double));
  for (size_t i = 0; i < s->n; i++) s->val[i] = NAN;
  s->told = xmalloc(s->n * sizeof(size_t));
  s->cost = xmalloc(s->n * sizeof(double));
  for (size_t i = 0; i < s->n; i++) s->cost[i] = NAN;
  s->best_idx = -1;
  s->best = INFINITY;
  if (ops->init && ops->init(s, err) < 0) {
    cterr_wrap(err, "strategy '%s'", name);
    strategy_free(s);
    return -1;
  }
  *out = s;
  return 0;
}

int strategy_new(const char *name, const configset *cs, uint64_t seed, const strategy_opts *opts, strategy **out,
                 cterr *err) {
  return strategy_new_shared(name, cs, seed, opts, NULL, NULL, out, err);
}

void strategy_seed(strategy *s, const size_t *idx, size_t n, int only) {
  s->seeds = xrealloc(s->seeds, (s->nseeds + n + 1) * sizeof *s->seeds);
  for (size_t i = 0; i < n; i++)
    if (idx[i] < s->n) s->seeds[s->nseeds++] = idx[i];
  s->seed_only = only;
}

size_t strategy_seeds_pending(const strategy *s) {
  size_t k = 0;
  for (size_t i = 0; i < s->seed_next; i++) k += s->mine[s->seeds[i]] && isnan(s->val[s->seeds[i]]);
  return k;
}

size_t strategy_seeds_left(const strategy *s) { return s->nseeds - s->seed_next; }

int strategy_ask(strategy *s, size_t *out, int max) {
  int k = 0;
  while (k < max && s->seed_next < s->nseeds) { /* the seeds first, those nobody proposed yet */
    size_t i = s->seeds[s->seed_next++];
    if (s->prop[i]) continue;
    s->prop[i] = 1, s->mine[i] = 1;
    (*s->nprop)++;
    out[k++] = i;
  }
  if (s->seed_only) return k;
  while (k < max && *s->nprop < s->n) {
    long i = s->ops->ask1(s);
    if (i < 0) i = st_random_free(s); /* a strategy with nothing left to say: fall back */
    if (i < 0) break;
    if (s->prop[i]) break; /* never propose twice: a strategy bug, stop rather than repeat */
    s->prop[i] = 1, s->mine[i] = 1;
    (*s->nprop)++;
    out[k++] = (size_t)i;
  }
  return k;
}

void strategy_tell(strategy *s, size_t idx, double value) {
  if (idx >= s->n || isnan(value)) return;
  if (isnan(s->val[idx])) s->told[s->ntold++] = idx;
  s->val[idx] = value;
  if (value < s->best) s->best = value, s->best_idx = (long)idx;
  if (s->ops->tell) s->ops->tell(s, idx, value, s->mine[idx]);
}

void strategy_tell_cost(strategy *s, size_t idx, double value, double cost_seconds) {
  if (idx < s->n && cost_seconds > 0 && isfinite(cost_seconds) && !isnan(value)) {
    if (isnan(s->cost[idx])) s->ncost++;
    s->cost[idx] = cost_seconds;
  }
  strategy_tell(s, idx, value);
}

void strategy_free(strategy *s) {
  if (!s) return;
  if (s->ops->free) s->ops->free(s);
  free(s->own_prop), free(s->mine), free(s->val), free(s->told), free(s->cost), free(s->seeds), free(s);
}

const char *strategy_name(const strategy *s) { return s->ops->name; }

void strategy_summary(const strategy *s, dbuf *out) {
  if (s->ops->summary) s->ops->summary(s, out);
}

/* ---- helpers ---- */

long st_random_free(strategy *s) {
  if (*s->nprop >= s->n) return -1;
  /* rejection while the space is mostly free; a scan from a random start once it is not */
  for (int t = 0; t < 64; t++) {
    size_t i = configset_sample(s->cs, &s->r);
    if (!s->prop[i]) return (long)i;
  }
  size_t start = (size_t)rng_below(&s->r, s->n);
  for (size_t k = 0; k < s->n; k++) {
    size_t i = (start + k) % s->n;
    if (!s->prop[i]) return (long)i;
  }
  return -1;
}

size_t st_free_neighbours(strategy *s, size_t i, cs_neighbour_kind kind, size_t *out, size_t max) {
  size_t cap = 4096, *tmp = xmalloc(cap * sizeof(size_t));
  size_t n = configset_neighbours(s->cs, i, kind, tmp, cap);
  if (n > cap) n = cap;
  size_t k = 0;
  for (size_t j = 0; j < n && k < max; j++)
    if (!s->prop[tmp[j]]) out[k++] = tmp[j];
  free(tmp);
  return k;
}

void st_row(const strategy *s, size_t i, uint16_t *row) {
  memcpy(row, configset_row(s->cs, i), (size_t)s->np * sizeof(uint16_t));
}

/* Reservoir-pick a random free valid row among those at Hamming distance `dist` (1 or 2). */
static long repair_at(strategy *s, uint16_t *row, int dist) {
  long pick = -1;
  uint64_t seen = 0;
  for (int p = 0; p < s->np; p++) {
    const cs_param *pp = configset_param(s->cs, p);
    uint16_t cp = row[p];
    for (int v = 0; v < pp->nvalues; v++) {
      if (v == cp) continue;
      row[p] = (uint16_t)v;
      if (dist == 1) {
        long j = configset_find(s->cs, row);
        if (j >= 0 && !s->prop[j] && rng_below(&s->r, ++seen) == 0) pick = j;
      } else {
        for (int q = p + 1; q < s->np; q++) {
          const cs_param *qq = configset_param(s->cs, q);
          uint16_t cq = row[q];
          for (int w = 0; w < qq->nvalues; w++) {
            if (w == cq) continue;
            row[q] = (uint16_t)w;
            long j = configset_find(s->cs, row);
            if (j >= 0 && !s->prop[j] && rng_below(&s->r, ++seen) == 0) pick = j;
          }
          row[q] = cq;
        }
      }
    }
    row[p] = cp;
  }
  return pick;
}

long st_repair(strategy *s, const uint16_t *row0) {
  uint16_t row[CS_MAX_PARAMS];
  memcpy(row, row0, (size_t)s->np * sizeof(uint16_t));
  long j = configset_find(s->cs, row);
  if (j >= 0 && !s->prop[j]) return j;
  j = repair_at(s, row, 1);
  if (j < 0) j = repair_at(s, row, 2);
  if (j < 0) j = st_random_free(s);
  return j;
}

/* ---- exhaustive: every row in enumeration order ---- */

typedef struct {
  size_t next;
} exh_state;

static int exh_init(strategy *s, cterr *err) {
  s->impl = xcalloc(1, sizeof(exh_state));
  return 0;
}
static long exh_ask(strategy *s) {
  exh_state *e = s->impl;
  while (e->next < s->n && s->prop[e->next]) e->next++;
  return e->next < s->n ? (long)e->next : -1;
}
static void impl_free(strategy *s) { free(s->impl); }

const strategy_ops strat_exhaustive_ops = {"exhaustive", exh_init, exh_ask, NULL, impl_free, NULL};

/* ---- random: uniform sampling without replacement (a lazily shuffled permutation) ---- */

typedef struct {
  size_t *perm, k;
} rnd_state;

static int rnd_init(strategy *s, cterr *err) {
  rnd_state *r = xcalloc(1, sizeof *r);
  r->perm = xmalloc(s->n * sizeof(size_t));
  for (size_t i = 0; i < s->n; i++) r->perm[i] = i;
  s->impl = r;
  return 0;
}
static long rnd_ask(strategy *s) {
  rnd_state *r = s->impl;
  while (r->k < s->n) {
    size_t j = r->k + (size_t)rng_below(&s->r, s->n - r->k), t = r->perm[j];
    r->perm[j] = r->perm[r->k], r->perm[r->k++] = t;
    if (!s->prop[t]) return (long)t;
  }
  return -1;
}
static void rnd_free(strategy *s) {
  rnd_state *r = s->impl;
  free(r->perm), free(r);
}

const strategy_ops strat_random_ops = {"random", rnd_init, rnd_ask, NULL, rnd_free, NULL};
