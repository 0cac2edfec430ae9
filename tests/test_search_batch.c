/* test_search_batch: batches, time costs and the default's credit share.
 *
 *   - the default strategy asked in batches of 4 and 8 (driver budget.batch): valid rows,
 *     never one twice, the whole budget spent, the same sequence under the same seed and a
 *     different one under another seed; the BO arm's batch (kriging believer) is not a
 *     cluster of one point's neighbours;
 *   - `cutune score --cost time` on tests/data/score_costs.json, six configurations with
 *     known times and compile + measuring costs: the budget in seconds, the best-so-far at
 *     each multiple of the mean cost, and the score against the random baseline;
 *   - cost-aware BO (strategy_opts.cost_aware) on the bowl with known costs (100x apart by
 *     parameter C): told costs are ignored when it is off (the same proposals as plain tells),
 *     it proposes the cheap configurations clearly more often when it is on, spends fewer
 *     seconds on the same number of evaluations, and stays deterministic in batches of 4;
 *   - the hybrid's credit share (search/strat_hybrid.c): hybrid_credit_share() is a third before
 *     any evidence, at its bounds when the exploitation arms earn far more or nothing per
 *     proposal, monotone in their gain, and a pseudo-count keeps one lucky proposal from taking
 *     the maximum; on a told stream where every result improves the best (no stall, so the stall
 *     ramp alone gives the exploitation arms nothing) the credit share still gives them between
 *     hybrid_credit_min and hybrid_credit_max of the proposals from hybrid_min on, none with
 *     the credit off, the same proposals under the same seed, and bo's first 20 either way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "search/driver.h"
#include "search/replay.h"
#include "search/score.h"
#include "search/score_impl.h"
#include "search/strategy.h"
#include "search/strategy_impl.h"

#define REQUIRE_OK(expr)                                                                                               \
  do {                                                                                                                 \
    int rc_ = (expr);                                                                                                  \
    if (rc_ != 0) fprintf(stderr, "%s\n", err.msg);                                                                    \
    REQUIRE(rc_ == 0);                                                                                                 \
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

/* Known costs: configurations with an odd A cost 100x the others (the optimum, A = 7, is dear). */
static double cost_of(const uint16_t *r) { return r[0] % 2 ? 5.0 : 0.05; }

static int eval_cost(void *ctx, size_t idx, double *v, double *cost, rec_status *st, cterr *err) {
  if (eval(ctx, idx, v, cost, st, err) < 0) return -1;
  *cost = cost_of(configset_row(((ectx *)ctx)->cs, idx));
  return 0;
}

/* The bowl again, but told by hand: with or without the cost, cost_aware on or off. Returns
 * how many of proposals 11..n were cheap; *spent = the summed cost of all n. */
static long run_costed(const char *name, const configset *cs, uint64_t seed, int aware, int tell_cost, long n,
                       size_t *seq, double *spent) {
  strategy_opts o;
  strategy_opts_default(&o);
  o.cost_aware = aware;
  strategy *s;
  cterr err;
  REQUIRE(strategy_new(name, cs, seed, &o, &s, &err) == 0);
  long cheap = 0;
  *spent = 0;
  for (long k = 0; k < n; k++) {
    size_t i;
    REQUIRE(strategy_ask(s, &i, 1) == 1);
    seq[k] = i;
    const uint16_t *r = configset_row(cs, i);
    double c = cost_of(r);
    *spent += c;
    if (k >= 10) cheap += c < 1;
    if (tell_cost) strategy_tell_cost(s, i, bowl(r), c);
    else strategy_tell(s, i, bowl(r));
  }
  strategy_free(s);
  return cheap;
}

static void test_cost_aware(const configset *cs) {
  enum { N = 60 };
  size_t a[N], b[N];
  double sa, sb;
  long tot_on = 0, tot_off = 0;
  double spent_on = 0, spent_off = 0;
  for (uint64_t seed = 1; seed <= 4; seed++) {
    /* off: told costs change nothing */
    long c0 = run_costed("bo", cs, seed, 0, 1, N, a, &sa);
    long c1 = run_costed("bo", cs, seed, 0, 0, N, b, &sb);
    CHECK_MSG(c0 == c1 && !memcmp(a, b, sizeof a), "seed %llu: costs told with cost_aware off changed bo",
              (unsigned long long)seed);
    tot_off += c0, spent_off += sa;
    tot_on += run_costed("bo", cs, seed, 1, 1, N, a, &sa);
    spent_on += sa;
    /* the default with costs on: deterministic, and cheaper than without */
    run_costed("hybrid", cs, seed, 1, 1, N, a, &sa);
    run_costed("hybrid", cs, seed, 1, 1, N, b, &sb);
    CHECK(!memcmp(a, b, sizeof a));
  }
  /* 4 seeds x 50 proposals after the initial design; half the space is cheap */
  fprintf(stderr, "cost_aware bo: %ld of 200 proposals cheap (%ld without), %.1f s spent (%.1f without)\n", tot_on,
          tot_off, spent_on, spent_off);
  CHECK_MSG(tot_on >= tot_off + 20 && tot_on >= 150, "cheap proposals: %ld with cost_aware, %ld without", tot_on,
            tot_off);
  CHECK_MSG(spent_on < 0.8 * spent_off, "seconds spent: %g with cost_aware, %g without", spent_on, spent_off);

  /* through the driver (costs told by search_run), batches of 4: deterministic, and a
   * seconds budget buys more evaluations than without cost_aware */
  long evals[2];
  for (int aware = 0; aware <= 1; aware++) {
    ectx e[2];
    search_outcome o[2];
    for (int rep = 0; rep < 2; rep++) {
      size_t n = configset_count(cs);
      memset(&e[rep], 0, sizeof e[rep]);
      e[rep].cs = cs, e[rep].seen = xcalloc(n, 1), e[rep].seq = xcalloc(n + 1, sizeof(size_t));
      strategy_opts opt;
      strategy_opts_default(&opt);
      opt.cost_aware = aware, opt.budget_hint = 100;
      strategy *s;
      cterr err;
      REQUIRE(strategy_new("hybrid", cs, 5, &opt, &s, &err) == 0);
      search_budget bud = {.evals = 400, .seconds = 60, .batch = 4};
      CHECK(search_run(s, &bud, eval_cost, NULL, &e[rep], &o[rep], &err) == 0);
      strategy_free(s);
    }
    CHECK_MSG(e[0].nseq == e[1].nseq && !memcmp(e[0].seq, e[1].seq, (size_t)e[0].nseq * sizeof(size_t)),
              "cost_aware %d, batch 4: not deterministic", aware);
    CHECK(e[0].dup == 0 && e[0].bad == 0);
    evals[aware] = o[0].evals;
    for (int rep = 0; rep < 2; rep++) search_outcome_free(&o[rep]), free(e[rep].seen), free(e[rep].seq);
  }
  fprintf(stderr, "hybrid, batch 4, 60 s: %ld evaluations with cost_aware, %ld without\n", evals[1], evals[0]);
  CHECK_MSG(evals[1] > evals[0], "60 s bought %ld evaluations with cost_aware, %ld without", evals[1], evals[0]);
}

static void test_share(void) {
  double u0[2] = {0, 0}, g0[2] = {0, 0};
  CHECK_MSG(fabs(hybrid_credit_share(u0, g0, 0.1, 0.5) - 1.0 / 3) < 1e-12, "no evidence: %g",
            hybrid_credit_share(u0, g0, 0.1, 0.5));
  /* only BO tried: its rate is the overall one, the untried arms get half of it: a third */
  double u1[2] = {20, 0}, g1[2] = {2, 0};
  CHECK(fabs(hybrid_credit_share(u1, g1, 0.1, 0.5) - 1.0 / 3) < 1e-12);
  /* exploitation earning ten times BO's rate: the upper bound */
  double u2[2] = {20, 10}, g2[2] = {0.2, 1.0};
  CHECK(hybrid_credit_share(u2, g2, 0.1, 0.5) == 0.5);
  CHECK(hybrid_credit_share(u2, g2, 0.1, 0.9) > 0.5);
  /* exploitation earning nothing over many proposals: the lower bound */
  double u3[2] = {10, 40}, g3[2] = {2, 0};
  CHECK(hybrid_credit_share(u3, g3, 0.1, 0.5) == 0.1);
  CHECK(hybrid_credit_share(u3, g3, 0.01, 0.5) < 0.1);
  /* monotone in the exploitation arms' gain */
  double prev = 0;
  for (int k = 0; k <= 20; k++) {
    double u[2] = {30, 10}, g[2] = {1.0, 0.1 * k};
    double f = hybrid_credit_share(u, g, 0.0001, 0.9999);
    CHECK_MSG(f >= prev, "share fell from %g to %g at gain %g", prev, f, 0.1 * k);
    prev = f;
  }
  /* one lucky proposal against a long BO record does not take the whole share */
  double u4[2] = {30, 1}, g4[2] = {1.5, 0.5};
  double f4 = hybrid_credit_share(u4, g4, 0.0001, 0.9999);
  CHECK_MSG(f4 < 0.8, "one lucky proposal: share %g", f4);
}

/* N proposals, each told 1000 - k (every result improves the best); the proposals go to seq.
 * Returns how many the exploitation arms made (from the summary: "bo: U uses, ...; ils: ...").
 * credit: 0 = on (the default), -1 = off. */
static long run_improving(const configset *cs, int credit, int n, size_t *seq) {
  strategy_opts o;
  memset(&o, 0, sizeof o);
  o.hybrid_credit = credit;
  strategy *s;
  cterr err;
  REQUIRE(strategy_new("hybrid", cs, 7, &o, &s, &err) == 0);
  for (int k = 0; k < n; k++) {
    REQUIRE(strategy_ask(s, &seq[k], 1) == 1);
    strategy_tell(s, seq[k], 1000.0 - k);
  }
  dbuf d;
  dbuf_init(&d);
  strategy_summary(s, &d);
  long bo = -1, total = 0;
  for (const char *p = d.data; (p = strstr(p, ": ")) != NULL; p += 2) {
    long u = strtol(p + 2, NULL, 10);
    if (bo < 0) bo = u;
    total += u;
  }
  CHECK_MSG(total == n, "summary '%s' counts %ld proposals of %d", d.data, total, n);
  dbuf_free(&d);
  strategy_free(s);
  return total - bo;
}

static void test_share_without_stall(const configset *cs) {
  enum { N = 120 };
  size_t a[N], b[N], c[N];
  long off = run_improving(cs, -1, N, a);
  long on = run_improving(cs, 0, N, b);
  run_improving(cs, 0, N, c);
  fprintf(stderr, "exploitation proposals of %d with every result improving: %ld credit on, %ld off\n", N, on, off);
  CHECK_MSG(off == 0, "credit off, no stall: the exploitation arms made %ld proposals", off);
  /* from hybrid_min (20) on at least a tenth, at most a half (+1 for the accumulator's rounding) */
  CHECK_MSG(on >= (N - 20) / 10 && on <= (N - 20) / 2 + 1, "credit on: %ld of %d", on, N - 20);
  CHECK(!memcmp(b, c, sizeof b));
  CHECK_MSG(!memcmp(a, b, 20 * sizeof(size_t)), "the first 20 proposals are bo's with or without credit");
}

/* A cutune store: a record's cost is compile_ms + measure_ms (the GPU worker's own time on it),
 * and compile_ms + median x samples in a record without measure_ms (older stores). */
static void test_store_cost(void) {
  const char *tmp = getenv("CUTUNE_TMP") ? getenv("CUTUNE_TMP") : "/tmp";
  char path[4096];
  snprintf(path, sizeof path, "%s/cutune_store_cost_XXXXXX", tmp);
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  FILE *f = fdopen(fd, "w");
  REQUIRE(f != NULL);
#define REC                                                                                                            \
  "{\"space\":\"c\",\"config\":\"X=%d\",\"params\":{\"X\":\"%d\"},\"problem\":\"n=1\",\"status\":\"ok\","              \
  "\"message\":\"\",\"time_ms\":{\"median\":%g,\"samples\":%d},\"compile_ms\":%g%s}\n"
  fprintf(f, REC, 0, 0, 2.0, 10, 500.0, ",\"measure_ms\":250");
  fprintf(f, REC, 1, 1, 3.0, 10, 1000.0, "");
#undef REC
  fclose(f);
  replay *r;
  cterr err;
  REQUIRE_OK(replay_load(path, NULL, &r, &err));
  REQUIRE(replay_count(r) == 2);
  double c0 = NAN, c1 = NAN; /* the replay's own order of the two configurations: by value */
  for (size_t i = 0; i < 2; i++) {
    if (replay_value(r, i) == 2.0) c0 = replay_cost_seconds(r, i);
    if (replay_value(r, i) == 3.0) c1 = replay_cost_seconds(r, i);
  }
  CHECK_MSG(fabs(c0 - 0.75) < 1e-9, "with measure_ms: cost %g s, expected 0.5 + 0.25", c0);
  CHECK_MSG(fabs(c1 - 1.03) < 1e-9, "without measure_ms: cost %g s, expected 1.0 + 3 ms x 10", c1);
  replay_free(r);
  unlink(path);
}

int main(void) {
  configset *cs = make_space();
  REQUIRE(configset_count(cs) > 600);
  test_default_batches(cs);
  test_bo_batch_spread(cs);
  test_time_cost();
  test_store_cost();
  test_cost_aware(cs);
  test_share();
  test_share_without_stall(cs);
  configset_free(cs);
  return check_report();
}
