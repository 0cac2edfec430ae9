/* test_search_batch: batches and time costs.
 *
 *   - the default strategy asked in batches of 4 and 8 (driver budget.batch): valid rows,
 *     never one twice, the whole budget spent, the same sequence under the same seed and a
 *     different one under another seed; the BO arm's batch (kriging believer) is not a
 *     cluster of one point's neighbours;
 *   - `cutune score --cost time` on tests/data/score_costs.json, six configurations with
 *     known times and compile + measuring costs: the budget in seconds, the best-so-far at
 *     each multiple of the mean cost, and the score against the random baseline. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "search/driver.h"
#include "search/replay.h"
#include "search/score.h"
#include "search/score_impl.h"
#include "search/strategy.h"

#define REQUIRE_OK(expr)                            \
  do {                                              \
    int rc_ = (expr);                               \
    if (rc_ != 0) fprintf(stderr, "%s\n", err.msg); \
    REQUIRE(rc_ == 0);                              \
  } while (0)

/* A, B: 0..11, C: 0..5; constraint (A + B) % 5 != 2; failures where A == 11 && B > 8.
 * Value: a bowl with its minimum 1 at A=7, B=4, C=1. */
static int check_fn(void *ctx, int depth, const uint16_t *row, cterr *err) {
  (void)ctx, (void)err;
  if (depth == 1) return (row[0] + row[1]) % 5 != 2;
  return 1;
}

static configset *make_space(void) {
  configset *cs = configset_new();
  const char *v[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"};
  cterr err;
  configset_add_param(cs, "A", 12, v, NULL, &err);
  configset_add_param(cs, "B", 12, v, NULL, &err);
  configset_add_param(cs, "C", 6, v, NULL, &err);
  configset_enumerate(cs, check_fn, NULL, &err);
  return cs;
}

static double bowl(const uint16_t *r) {
  if (r[0] == 11 && r[1] > 8) return INFINITY;
  double a = r[0] - 7.0, b = r[1] - 4.0, c = r[2] - 1.0;
  return 1 + a * a + 1.5 * b * b + 2 * c * c;
}

typedef struct {
  const configset *cs;
  uint8_t *seen;
  size_t *seq;
  long nseq, dup, bad;
} ectx;

static int eval(void *ctx, size_t idx, double *v, double *cost, rec_status *st, cterr *err) {
  ectx *e = ctx;
  if (idx >= configset_count(e->cs)) return cterr_set(err, "index %zu out of range", idx);
  const uint16_t *row = configset_row(e->cs, idx);
  if ((row[0] + row[1]) % 5 == 2) e->bad++;
  e->dup += e->seen[idx];
  e->seen[idx] = 1;
  e->seq[e->nseq++] = idx;
  *v = bowl(row);
  *st = isfinite(*v) ? ST_OK : ST_RUNTIME_FAULT;
  *cost = 1.0 + row[2]; /* a cost per configuration, so the seconds budget means something */
  return 0;
}

static void run(const char *name, const configset *cs, uint64_t seed, long budget, int batch, ectx *e,
                search_outcome *out) {
  size_t n = configset_count(cs);
  memset(e, 0, sizeof *e);
  e->cs = cs;
  e->seen = xcalloc(n, 1);
  e->seq = xcalloc(n + 1, sizeof(size_t));
  strategy *s;
  cterr err;
  REQUIRE(strategy_new(name, cs, seed, NULL, &s, &err) == 0);
  search_budget b = {.evals = budget, .batch = batch};
  CHECK(search_run(s, &b, eval, NULL, e, out, &err) == 0);
  strategy_free(s);
}

static void test_default_batches(const configset *cs) {
  size_t n = configset_count(cs);
  const char *def = strategy_default_name(n, 120);
  CHECK_MSG(!strcmp(def, "hybrid"), "default for a large space is '%s'", def);
  static const int batches[] = {1, 4, 8};
  for (size_t bi = 0; bi < sizeof batches / sizeof *batches; bi++) {
    int batch = batches[bi];
    ectx e1, e2, e3;
    search_outcome o1, o2, o3;
    run(def, cs, 11, 120, batch, &e1, &o1);
    run(def, cs, 11, 120, batch, &e2, &o2);
    run(def, cs, 12, 120, batch, &e3, &o3);
    CHECK_MSG(o1.evals == 120 && o1.ncurve == 120, "batch %d: %ld evaluations", batch, o1.evals);
    CHECK_MSG(e1.dup == 0 && e1.bad == 0, "batch %d: %ld duplicates, %ld invalid", batch, e1.dup, e1.bad);
    CHECK_MSG(e1.nseq == e2.nseq && !memcmp(e1.seq, e2.seq, (size_t)e1.nseq * sizeof(size_t)),
              "batch %d: not deterministic under one seed", batch);
    CHECK_MSG(memcmp(e1.seq, e3.seq, 120 * sizeof(size_t)) != 0, "batch %d: seeds 11 and 12 agree", batch);
    CHECK_MSG(o1.best < 12, "batch %d: best %g after 120 of %zu (optimum 1)", batch, o1.best, n);
    for (long i = 1; i < o1.ncurve; i++) CHECK(o1.curve_s[i] > o1.curve_s[i - 1]);
    search_outcome_free(&o1), search_outcome_free(&o2), search_outcome_free(&o3);
    free(e1.seen), free(e1.seq), free(e2.seen), free(e2.seq), free(e3.seen), free(e3.seq);
  }
}

/* After 30 results, one batch of 8 from bo: the believer spreads it over more than one
 * value of every parameter instead of eight neighbours of one point. */
static void test_bo_batch_spread(const configset *cs) {
  strategy *s;
  cterr err;
  REQUIRE(strategy_new("bo", cs, 3, NULL, &s, &err) == 0);
  size_t buf[8];
  for (int k = 0; k < 30; k++) {
    REQUIRE(strategy_ask(s, buf, 1) == 1);
    strategy_tell(s, buf[0], bowl(configset_row(cs, buf[0])));
  }
  REQUIRE(strategy_ask(s, buf, 8) == 8);
  long far = 0; /* pairs that differ in at least two parameters */
  for (int i = 0; i < 8; i++)
    for (int j = i + 1; j < 8; j++) {
      const uint16_t *a = configset_row(cs, buf[i]), *b = configset_row(cs, buf[j]);
      far += (a[0] != b[0]) + (a[1] != b[1]) + (a[2] != b[2]) >= 2;
      CHECK(buf[i] != buf[j]);
    }
  CHECK_MSG(far >= 10, "bo batch of 8: only %ld of 28 pairs differ in two parameters or more", far);
  strategy_free(s);
}

/* tests/data/score_costs.json: X = 0..5, time 5, 4, 3, 2, 1 ms, X = 5 fails to compile; costs
 * (compile + benchmark) 1, 1, 4, 1, 4, 1 s, mean 2 s. Exhaustive in file order reaches, by
 * 2, 4, .., 12 s (cumulative costs 1, 2, 6, 7, 11, 12): best 4, 4, 3, 2, 2, 1 ms. */
static double want_score(int b, double best) {
  const double sorted[5] = {1, 2, 3, 4, 5};
  double e = score_random_expected(sorted, 5, 6, b); /* 1 at b = 6: every row drawn */
  return e - 1 > 1e-12 ? (e - best) / (e - 1) : (best <= 1 ? 1 : 0);
}

static void test_time_cost(void) {
  const char *path = "tests/data/score_costs.json";
  replay *r;
  cterr err;
  REQUIRE_OK(replay_load(path, NULL, &r, &err));
  static const double cost[6] = {1, 1, 4, 1, 4, 1}, want_time[6] = {5, 4, 3, 2, 1, INFINITY};
  REQUIRE(replay_count(r) == 6);
  for (size_t i = 0; i < 6; i++) {
    CHECK_MSG(fabs(replay_cost_seconds(r, i) - cost[i]) < 1e-9, "cost of %zu: %g", i, replay_cost_seconds(r, i));
    CHECK(replay_value(r, i) == want_time[i]);
  }
  replay_free(r);

  score_cfg cfg = {.nstrat = 1, .repeats = 1, .budget_min = 1, .budget_max = 6, .seed = 1, .batch = 1};
  cfg.strat[0] = "exhaustive";
  score_result res, ev;
  cfg.cost_time = 1;
  REQUIRE_OK(score_file(path, &cfg, &res, &err));
  cfg.cost_time = 0;
  REQUIRE_OK(score_file(path, &cfg, &ev, &err));
  CHECK_MSG(fabs(res.budget_s - 12) < 1e-9, "budget %g s (6 mean costs of 2 s)", res.budget_s);
  CHECK(res.evals == 6 && ev.evals == 6);
  static const double best_t[6] = {4, 4, 3, 2, 2, 1}, best_e[6] = {5, 4, 3, 2, 1, 1};
  for (int b = 1; b <= 6; b++) {
    double st = want_score(b, best_t[b - 1]), se = want_score(b, best_e[b - 1]);
    CHECK_MSG(fabs(res.score[b] - st) < 1e-9, "time score at %d: %g, want %g", b, res.score[b], st);
    CHECK_MSG(fabs(ev.score[b] - se) < 1e-9, "evaluation score at %d: %g, want %g", b, ev.score[b], se);
  }
  /* a batch of 4 in time mode: evaluated in order, so exhaustive's curve is the same */
  cfg.cost_time = 1, cfg.batch = 4;
  REQUIRE_OK(score_file(path, &cfg, &res, &err));
  for (int b = 1; b <= 6; b++) CHECK(fabs(res.score[b] - want_score(b, best_t[b - 1])) < 1e-9);
}

int main(void) {
  configset *cs = make_space();
  REQUIRE(configset_count(cs) > 600);
  test_default_batches(cs);
  test_bo_batch_spread(cs);
  test_time_cost();
  configset_free(cs);
  return check_report();
}
