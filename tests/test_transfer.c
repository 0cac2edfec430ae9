/* test_transfer: search/transfer.c (the kept best per shape, one per family; the seeds of the
 * nearest shapes rank by rank; the tuning order; the stall rule) and strategy_seed (seeds
 * proposed first, in order, never twice; a fixed list with only; the pending count). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "search/driver.h"
#include "search/strategy.h"
#include "search/transfer.h"

static void test_keep(void) {
  transfer *t = transfer_new(1);
  int64_t d = 100;
  transfer_shape(t, 0, &d);
  CHECK(transfer_tuned(t) == 0);
  for (size_t c = 0; c < 20; c++) transfer_note(t, 0, c, c % 10, 100.0 - (double)c); /* families 0..9 twice */
  transfer_note(t, 0, 99, 99, INFINITY);                                             /* failed: ignored */
  size_t cfg[TRANSFER_KEEP];
  double val[TRANSFER_KEEP];
  int k = transfer_top(t, 0, cfg, val, TRANSFER_KEEP);
  CHECK(k == TRANSFER_KEEP);
  /* best first, one per family: 19 (fam 9), 18 (fam 8) ... 12 (fam 2); never 9 (fam 9 again) */
  for (int i = 0; i < k; i++)
    CHECK_MSG(cfg[i] == (size_t)(19 - i) && val[i] == 81.0 + i, "%d: %zu %g", i, cfg[i], val[i]);
  long best;
  CHECK(transfer_best(t, 0, &best) == 81.0 && best == 19);
  transfer_note(t, 0, 5, 9, 50.0); /* family 9 improves: its entry is replaced, not added */
  k = transfer_top(t, 0, cfg, val, TRANSFER_KEEP);
  CHECK(cfg[0] == 5 && val[0] == 50.0 && cfg[1] == 18);
  for (int i = 1; i < k; i++) CHECK(cfg[i] != 19);
  CHECK(transfer_tuned(t) == 1);
  CHECK(transfer_best(t, 3, &best) == INFINITY && best == -1);
  transfer_free(t);
}

static void test_seeds(void) {
  /* shapes on a line of sizes: 1000, 2000, 4000, 8000, 16000; each with kernels 10i .. 10i+3 */
  transfer *t = transfer_new(2);
  for (int i = 0; i < 5; i++) {
    int64_t d[2] = {1000LL << i, 7};
    transfer_shape(t, i, d);
    if (i == 2) continue; /* shape 2 is the one being tuned: nothing noted */
    for (int r = 0; r < 4; r++) transfer_note(t, i, (size_t)(10 * i + r), (uint64_t)(10 * i + r), 1.0 + r);
  }
  int64_t q[2] = {4000, 7};
  size_t out[64];
  int from[8], nfrom = 0;
  int k = transfer_seeds(t, 2, q, 2, 3, out, 64, from, &nfrom);
  /* the two nearest are 1 (2000) and 3 (8000), at the same distance: the lower id first */
  CHECK(nfrom == 2 && from[0] == 1 && from[1] == 3);
  size_t want[] = {10, 30, 11, 31, 12, 32};
  CHECK(k == 6);
  for (int i = 0; i < k && i < 6; i++) CHECK_MSG(out[i] == want[i], "seed %d is %zu (wanted %zu)", i, out[i], want[i]);
  k = transfer_seeds(t, 2, q, 3, 1, out, 2, from, &nfrom); /* max caps the seeds */
  CHECK(k == 2 && out[0] == 10 && out[1] == 30 && nfrom == 3 && from[2] == 0);
  /* a configuration several shapes share is seeded once */
  transfer_note(t, 3, 10, 10, 0.5);
  k = transfer_seeds(t, 2, q, 2, 1, out, 64, from, &nfrom);
  CHECK(k == 1 && out[0] == 10);
  CHECK(fabs(transfer_distance((int64_t[]){1000, 10}, (int64_t[]){4000, 10}, 2) - log(4.0)) < 1e-12);
  transfer_free(t);
}

static void test_order(void) {
  /* 1-D sizes: listed 64, 8, 1024, 16, 4096, 128 -> 64 first, then always the nearest to those placed */
  int64_t d[] = {64, 8, 1024, 16, 4096, 128};
  int out[6];
  int n = transfer_order(d, 6, 1, NULL, out);
  int want[] = {0, 5, 3, 1, 2, 4}; /* 64, 128 (x2), 16 (x4 from 64), 8, 1024 (x8 from 128), 4096 */
  CHECK(n == 6);
  for (int i = 0; i < 6; i++) CHECK_MSG(out[i] == want[i], "position %d: %d (wanted %d)", i, out[i], want[i]);
  unsigned char tuned[6] = {0, 0, 0, 0, 1, 0}; /* 4096 tuned before: 1024 comes first, 4096 is not listed */
  n = transfer_order(d, 6, 1, tuned, out);
  CHECK(n == 5 && out[0] == 2);
  CHECK(transfer_stalled(50, 10, 40) && !transfer_stalled(49, 10, 40) && !transfer_stalled(1000, 0, 0));
  CHECK(transfer_improves(1.0, INFINITY) && transfer_improves(0.99, 1.0) && !transfer_improves(0.996, 1.0));
}

/* 100 configurations: A, B in 0..9 */
static configset *grid_10x10(void) {
  configset *cs = configset_new();
  const char *vals[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
  cterr e;
  REQUIRE(configset_add_param(cs, "A", 10, vals, NULL, &e) >= 0);
  REQUIRE(configset_add_param(cs, "B", 10, vals, NULL, &e) >= 0);
  uint16_t row[2];
  for (int a = 0; a < 10; a++)
    for (int b = 0; b < 10; b++) row[0] = (uint16_t)a, row[1] = (uint16_t)b, configset_add(cs, row);
  return cs;
}

static void test_strategy_seed(void) {
  configset *cs = grid_10x10();
  cterr e;
  const char *names[] = {"random", "ils", "bo", "hybrid"};
  for (int k = 0; k < 4; k++) {
    strategy *s;
    REQUIRE(strategy_new(names[k], cs, 3, NULL, &s, &e) == 0);
    size_t seeds[] = {42, 7, 42, 99}, out[8];
    strategy_seed(s, seeds, 4, 0);
    int got = strategy_ask(s, out, 2);
    CHECK(got == 2 && out[0] == 42 && out[1] == 7);
    CHECK(strategy_seeds_pending(s) == 2 && strategy_seeds_left(s) == 2);
    strategy_tell(s, 42, 1.0);
    CHECK(strategy_seeds_pending(s) == 1);
    got = strategy_ask(s, out, 3); /* the repeat of 42 is skipped; then the strategy's own */
    CHECK_MSG(got == 3 && out[0] == 99 && out[1] != 42 && out[1] != 7 && out[2] != 99, "%s: %d %zu %zu", names[k], got,
              out[0], out[1]);
    strategy_free(s);
  }
  /* only: a fixed list, then nothing */
  strategy *s;
  REQUIRE(strategy_new("exhaustive", cs, 1, NULL, &s, &e) == 0);
  size_t list[] = {5, 50, 95}, out[8];
  strategy_seed(s, list, 3, 1);
  CHECK(strategy_ask(s, out, 8) == 3 && out[2] == 95);
  CHECK(strategy_ask(s, out, 8) == 0);
  strategy_free(s);
  configset_free(cs);
}

static int flat_eval(void *ctx, size_t idx, double *value, double *cost, rec_status *st, cterr *err) {
  (void)ctx, (void)err;
  *value = idx == 0 ? 1.0 : 2.0, *cost = 1, *st = ST_OK;
  return 0;
}

/* the driver's patience: a seeded search that never improves on its seed stops after it */
static void test_patience(void) {
  configset *cs = grid_10x10();
  cterr e;
  strategy *s;
  REQUIRE(strategy_new("random", cs, 1, NULL, &s, &e) == 0);
  size_t seed = 0;
  strategy_seed(s, &seed, 1, 0);
  search_budget b = {.evals = 80, .patience = 12};
  search_outcome o;
  REQUIRE(search_run(s, &b, flat_eval, NULL, NULL, &o, &e) == 0);
  CHECK_MSG(o.evals == 13 && o.best == 1.0 && o.best_idx == 0, "evals %ld best %g", o.evals, o.best);
  search_outcome_free(&o);
  strategy_free(s);
  configset_free(cs);
}

int main(void) {
  test_keep();
  test_seeds();
  test_order();
  test_strategy_seed();
  test_patience();
  return check_report();
}
