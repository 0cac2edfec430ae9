/* test_search: every strategy on a small synthetic constrained space with a known optimum and
 * failures; budgets, validity, no duplicates, determinism; the random-search baseline. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "search/driver.h"
#include "search/score.h"
#include "search/strategy.h"

/* A: 0..9, B: 0..9, C: 0..4, D: x|y|z (not numeric). Constraint: (A+B) % 7 != 3.
 * Failures: A == 9 && B > 5. Value: a separable bowl with its unique minimum 1 at A=6,B=3,C=2,D=y. */
static int check_fn(void *ctx, int depth, const uint16_t *row, cterr *err) {
  if (depth == 1) return (row[0] + row[1]) % 7 != 3;
  return 1;
}

static configset *make_space(void) {
  configset *cs = configset_new();
  const char *ab[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, *c[] = {"0", "1", "2", "3", "4"};
  const char *d[] = {"x", "y", "z"};
  cterr err;
  configset_add_param(cs, "A", 10, ab, NULL, &err);
  configset_add_param(cs, "B", 10, ab, NULL, &err);
  configset_add_param(cs, "C", 5, c, NULL, &err);
  configset_add_param(cs, "D", 3, d, NULL, &err);
  configset_enumerate(cs, check_fn, NULL, &err);
  return cs;
}

static double bowl(const uint16_t *r) {
  if (r[0] == 9 && r[1] > 5) return INFINITY;
  double a = r[0] - 6.0, b = r[1] - 3.0, c = r[2] - 2.0;
  return 1 + a * a + 2 * b * b + 3 * c * c + (r[3] == 1 ? 0 : 4);
}

typedef struct {
  const configset *cs;
  uint8_t *seen;
  size_t *seq;
  long nseq, dup, bad;
} ectx;

static int eval(void *ctx, size_t idx, double *v, double *cost, rec_status *st, cterr *err) {
  ectx *e = ctx;
  if (idx >= configset_count(e->cs)) {
    e->bad++;
    return cterr_set(err, "index %zu out of range", idx);
  }
  const uint16_t *row = configset_row(e->cs, idx);
  if ((row[0] + row[1]) % 7 == 3) e->bad++;
  if (e->seen[idx]) e->dup++;
  e->seen[idx] = 1;
  e->seq[e->nseq++] = idx;
  *v = bowl(row);
  *st = isfinite(*v) ? ST_OK : ST_RUNTIME_FAULT;
  *cost = 1.0;
  return 0;
}

/* Run one strategy; returns the outcome, fills e. */
static void run(const char *name, const configset *cs, uint64_t seed, long budget, ectx *e, search_outcome *out) {
  size_t n = configset_count(cs);
  memset(e, 0, sizeof *e);
  e->cs = cs;
  e->seen = xcalloc(n, 1);
  e->seq = xcalloc(n + 1, sizeof(size_t));
  strategy *s;
  cterr err;
  REQUIRE(strategy_new(name, cs, seed, NULL, &s, &err) == 0);
  search_budget b = {.evals = budget};
  CHECK(search_run(s, &b, eval, NULL, e, out, &err) == 0);
  strategy_free(s);
}

static void ectx_free(ectx *e) { free(e->seen), free(e->seq); }

static void test_strategies(const configset *cs) {
  size_t n = configset_count(cs), opt = 0;
  for (size_t i = 1; i < n; i++)
    if (bowl(configset_row(cs, i)) < bowl(configset_row(cs, opt))) opt = i;
  CHECK(bowl(configset_row(cs, opt)) == 1);
  const char *const *names = strategy_names();
  for (int k = 0; names[k]; k++) {
    const char *nm = names[k];
    double t0 = now_seconds();
    int full = !strcmp(nm, "exhaustive") || !strcmp(nm, "random");
    long budget = full ? (long)n : 250; /* about a fifth of the space for the searching ones */
    for (uint64_t seed = 1; seed <= 3; seed++) {
      ectx e;
      search_outcome out;
      run(nm, cs, seed, budget, &e, &out);
      CHECK_MSG(out.evals == budget, "%s: %ld evaluations, budget %ld", nm, out.evals, budget);
      CHECK_MSG(e.dup == 0 && e.bad == 0, "%s seed %llu: %ld duplicates, %ld invalid", nm, (unsigned long long)seed,
                e.dup, e.bad);
      CHECK_MSG(out.best_idx == (long)opt, "%s seed %llu: best %g (optimum 1) after %ld", nm, (unsigned long long)seed,
                out.best, out.evals);
      CHECK(out.ncurve == out.evals);
      for (long i = 1; i < out.ncurve; i++) CHECK(out.curve[i] <= out.curve[i - 1]);
      /* determinism: the same seed gives the same sequence; another seed a different one */
      ectx e2;
      search_outcome out2;
      run(nm, cs, seed, 60, &e2, &out2);
      ectx e3;
      search_outcome out3;
      run(nm, cs, seed, 60, &e3, &out3);
      CHECK_MSG(!memcmp(e2.seq, e3.seq, 60 * sizeof(size_t)), "%s: not deterministic under seed %llu", nm,
                (unsigned long long)seed);
      ectx e4;
      search_outcome out4;
      run(nm, cs, seed + 100, 60, &e4, &out4);
      if (strcmp(nm, "exhaustive"))
        CHECK_MSG(memcmp(e2.seq, e4.seq, 60 * sizeof(size_t)) != 0, "%s: same sequence under seeds %llu and %llu", nm,
                  (unsigned long long)seed, (unsigned long long)seed + 100);
      search_outcome_free(&out), search_outcome_free(&out2), search_outcome_free(&out3), search_outcome_free(&out4);
      ectx_free(&e), ectx_free(&e2), ectx_free(&e3), ectx_free(&e4);
    }
    /* asking past the end of the space: everything once, then nothing */
    ectx e;
    search_outcome out;
    run(nm, cs, 7, (long)n + 50, &e, &out);
    CHECK_MSG(out.evals == (long)n && e.dup == 0, "%s: %ld evaluations of %zu, %ld duplicates", nm, out.evals, n,
              e.dup);
    search_outcome_free(&out), ectx_free(&e);
    fprintf(stderr, "%-10s %.2f s\n", nm, now_seconds() - t0);
  }
}

/* Batch asks, a seconds budget, and lookups that are not charged. */
static int lookup_even_small(void *ctx, size_t idx, double *v) {
  ectx *e = ctx;
  if (idx % 10 != 0) return 0;
  *v = bowl(configset_row(e->cs, idx));
  return 1;
}

static void test_driver_and_batches(const configset *cs) {
  size_t n = configset_count(cs);
  strategy *s;
  cterr err;
  REQUIRE(strategy_new("bandit", cs, 5, NULL, &s, &err) == 0);
  uint8_t *seen = xcalloc(n, 1);
  size_t buf[16];
  long total = 0, dup = 0;
  int k;
  while ((k = strategy_ask(s, buf, 16)) > 0) {
    for (int i = 0; i < k; i++) {
      dup += seen[buf[i]];
      seen[buf[i]] = 1;
      strategy_tell(s, buf[i], bowl(configset_row(cs, buf[i])));
    }
    total += k;
  }
  CHECK(total == (long)n && dup == 0);
  strategy_free(s);
  free(seen);

  ectx e = {.cs = cs, .seen = xcalloc(n, 1), .seq = xcalloc(n + 1, sizeof(size_t))};
  REQUIRE(strategy_new("ga", cs, 5, NULL, &s, &err) == 0);
  search_outcome out;
  search_budget b = {.evals = 0, .seconds = 40};
  CHECK(search_run(s, &b, eval, lookup_even_small, &e, &out, &err) == 0);
  CHECK_MSG(out.evals == 40 && out.ncurve == 40, "seconds budget: %ld evaluations", out.evals);
  CHECK(out.looked_up > 0);
  for (long i = 0; i < e.nseq; i++) CHECK(e.seq[i] % 10 != 0); /* looked-up ones never evaluated */
  search_outcome_free(&out);
  strategy_free(s);
  ectx_free(&e);

  CHECK(!strcmp(strategy_default_name(100, 100), "exhaustive"));
  CHECK(!strcmp(strategy_default_name(100, 99), "hybrid"));
  CHECK(!strcmp(strategy_default_name(100, -1), "hybrid"));
  CHECK(strategy_new("simplex", cs, 1, NULL, &s, &err) < 0);
  CHECK_STR_CONTAINS(err.msg, "unknown strategy 'simplex'");
  strategy_opts o = {.arms = "ils,bandit"};
  CHECK(strategy_new("bandit", cs, 1, &o, &s, &err) < 0);
  CHECK_STR_CONTAINS(err.msg, "arm");
}

/* The closed form against exact enumeration of every k-subset (tiny) and Monte Carlo. */
static void test_baseline(void) {
  const double v[] = {1, 2, 2, 5}; /* m = 4 successes among n = 6 (2 failures) */
  size_t n = 6, m = 4;
  for (long k = 1; k <= 6; k++) {
    double sum = 0;
    long cnt = 0;
    for (unsigned mask = 0; mask < (1u << n); mask++) {
      if (__builtin_popcount(mask) != k) continue;
      double best = INFINITY;
      for (size_t i = 0; i < m; i++)
        if (mask & (1u << i)) best = fmin(best, v[i]);
      sum += isfinite(best) ? best : v[m - 1];
      cnt++;
    }
    double exact = sum / cnt, closed = score_random_expected(v, m, n, k);
    CHECK_MSG(fabs(exact - closed) < 1e-12, "k=%ld: enumeration %g, closed form %g", k, exact, closed);
  }
  /* Monte Carlo on a larger space */
  size_t N = 300, M = 240;
  double *vals = xmalloc(M * sizeof(double));
  rng r;
  rng_seed(&r, 42);
  for (size_t i = 0; i < M; i++) vals[i] = 1 + i + rng_uniform(&r) * 0.5; /* ascending */
  size_t *perm = xmalloc(N * sizeof(size_t));
  const long ks[] = {1, 5, 20, 100};
  for (int t = 0; t < 4; t++) {
    long k = ks[t];
    double sum = 0;
    int trials = 40000;
    for (int tr = 0; tr < trials; tr++) {
      for (size_t i = 0; i < N; i++) perm[i] = i;
      double best = INFINITY;
      for (long j = 0; j < k; j++) {
        size_t q = (size_t)j + (size_t)rng_below(&r, N - (size_t)j), x = perm[q];
        perm[q] = perm[j], perm[j] = x;
        if (x < M) best = fmin(best, vals[x]);
      }
      sum += isfinite(best) ? best : vals[M - 1];
    }
    double mc = sum / trials, closed = score_random_expected(vals, M, N, k);
    CHECK_MSG(fabs(mc - closed) < 0.02 * closed + 0.05, "k=%ld: Monte Carlo %g, closed form %g", k, mc, closed);
  }
  CHECK(score_random_expected(vals, M, N, (long)N) == vals[0]);
  free(vals), free(perm);
}

int main(void) {
  configset *cs = make_space();
  size_t n = configset_count(cs);
  REQUIRE(n > 1000 && n < 1500);
  test_strategies(cs);
  test_driver_and_batches(cs);
  test_baseline();
  configset_free(cs);
  return check_report();
}
