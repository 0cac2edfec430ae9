/* test_search_hybrid: the default strategy's credit share (search/strat_hybrid.c).
 *
 *   - hybrid_credit_share(): a third before any evidence, the bounds when the exploitation arms
 *     earn far more or nothing per proposal, monotone in their gain, a pseudo-count that keeps a
 *     single lucky proposal from taking the maximum;
 *   - on a told stream where every result improves the best (no stall ever, so the stall ramp
 *     alone gives the exploitation arms nothing), the credit share still hands them at least
 *     hybrid_credit_min of the proposals from hybrid_min on, at most hybrid_credit_max, and
 *     --hybrid-credit off gives them none; the same seed gives the same proposals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "search/strategy.h"
#include "search/strategy_impl.h"

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

static int check_fn(void *ctx, int depth, const uint16_t *row, cterr *err) {
  (void)ctx, (void)err;
  return depth != 1 || (row[0] + row[1]) % 5 != 2;
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

int main(void) {
  test_share();
  configset *cs = make_space();
  test_share_without_stall(cs);
  configset_free(cs);
  return check_report();
}
