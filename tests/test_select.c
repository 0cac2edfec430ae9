/* test_select: tuner/ship/select.c on made-up ratio tables whose answers are known — the
 * optimum cover where greedy alone is wrong (a redundant first pick; a non-redundant greedy
 * cover of three where two suffice), the cap on kernels, the assignment, the rule and its
 * leave-one-out (k = 1 exactly computed by hand; a noisy label that makes k = 2 better), and the
 * fill term (a kernel that fills a GPU at one size and an eighth of it at another), and the tie
 * rule of leave-one-out (the largest k where the shapes cannot tell them apart, a clear best
 * kept, no k larger than the shapes left). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ship/select.h"

/* R: np x nc, every entry `off`, then the covering ones set to `on` */
static double *table(int np, int nc, double off) {
  double *R = malloc((size_t)np * nc * sizeof *R);
  for (int i = 0; i < np * nc; i++) R[i] = off;
  return R;
}

static long long *line_dims(int np) { /* shapes 1, 2, 4, ... in one size */
  long long *d = malloc((size_t)np * sizeof *d);
  for (int p = 0; p < np; p++) d[p] = 1LL << p;
  return d;
}

static void test_redundant_first(void) {
  /* 6 shapes; kernel 0 covers {0,1,2,3}, 1 covers {0,2,4}, 2 covers {1,3,5}: greedy takes 0
   * first, then needs 1 and 2; dropping the redundant 0 leaves the optimum {1, 2} */
  int np = 6, nc = 3;
  double *R = table(np, nc, 1.5);
  int c0[] = {0, 1, 2, 3}, c1[] = {0, 2, 4}, c2[] = {1, 3, 5};
  for (int i = 0; i < 4; i++) R[c0[i] * nc + 0] = 1.0;
  for (int i = 0; i < 3; i++) R[c1[i] * nc + 1] = 1.0, R[c2[i] * nc + 2] = 1.0;
  long long *d = line_dims(np);
  sel_input in = {.np = np, .nc = nc, .nv = 1, .R = R, .dims = d, .tol = 0.03, .maxk = 16, .knn = 1};
  sel_result r;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK_MSG(r.nset == 2 && r.set[0] == 1 && r.set[1] == 2, "nset %d: %d %d", r.nset, r.set[0],
            r.nset > 1 ? r.set[1] : -1);
  CHECK(r.covered == 6 && r.coverable == 6 && r.worst == 1.0);
  CHECK(r.assign[0] == 1 && r.assign[1] == 2 && r.assign[4] == 1 && r.assign[5] == 2);
  select_free(&r);
  free(R), free(d);
}

static void test_greedy_trap(void) {
  /* 14 shapes in two rows 0..6 and 7..13. Kernels: 0 = row one, 1 = row two (the optimum, two
   * kernels); 2 = {0,1,2,3,7,8,9,10}, 3 = {4,5,11,12}, 4 = {6,13}: greedy takes 2, 3, 4 (8, 4, 2
   * new shapes), none redundant; the exhaustive search over the useful kernels finds {0, 1}.
   * Kernels 5..39 cover nothing (1.2 everywhere: a store's many near misses). */
  int np = 14, nc = 40;
  double *R = table(np, nc, 1.2);
  for (int p = 0; p < 7; p++) R[p * nc + 0] = 1.01, R[(p + 7) * nc + 1] = 1.01;
  int g2[] = {0, 1, 2, 3, 7, 8, 9, 10}, g3[] = {4, 5, 11, 12}, g4[] = {6, 13};
  for (int i = 0; i < 8; i++) R[g2[i] * nc + 2] = 1.0;
  for (int i = 0; i < 4; i++) R[g3[i] * nc + 3] = 1.0;
  for (int i = 0; i < 2; i++) R[g4[i] * nc + 4] = 1.0;
  long long *d = line_dims(np);
  sel_input in = {.np = np, .nc = nc, .nv = 1, .R = R, .dims = d, .tol = 0.03, .maxk = 16, .knn = 1};
  sel_result r;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK_MSG(r.nset == 2 && r.set[0] == 0 && r.set[1] == 1, "nset %d: %d %d", r.nset, r.set[0],
            r.nset > 1 ? r.set[1] : -1);
  CHECK(r.covered == 14);
  CHECK(fabs(r.worst - 1.01) < 1e-12);
  select_free(&r);
  /* with a cover tolerance of 0.5 % the 1.01 of kernels 0 and 1 no longer cover: 2, 3, 4 stay */
  in.tol = 0.005;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK_MSG(r.nset == 3 && r.set[0] == 2 && r.set[1] == 3 && r.set[2] == 4, "nset %d", r.nset);
  select_free(&r);
  free(R), free(d);
}

static void test_cap(void) {
  /* 20 shapes, each with a kernel of its own (the others 2.0 there): 16 kernels at most */
  int np = 20, nc = 20;
  double *R = table(np, nc, 2.0);
  for (int p = 0; p < np; p++) R[p * nc + p] = 1.0;
  long long *d = line_dims(np);
  sel_input in = {.np = np, .nc = nc, .nv = 1, .R = R, .dims = d, .tol = 0.03, .maxk = 16, .knn = 1};
  sel_result r;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK(r.nset == 16 && r.covered == 16 && r.coverable == 20 && r.worst == 2.0);
  select_free(&r);
  in.maxk = 4;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK(r.nset == 4 && r.covered == 4);
  select_free(&r);
  free(R), free(d);
}

static void test_rule(void) {
  /* 10 shapes N = 1 .. 512; kernel 0 is best (1.0) up to N = 16, 1.3 above; kernel 1 the other
   * way round. Leave-one-out with k = 1: each shape's nearest is in its own regime but 32's
   * (16 and 64 are as near: the lower index, 16), so 9 of 10 are within 3 % and the worst
   * share is 1/1.3. Untuned sizes: 5 -> nearest 4 -> kernel 0; 300 -> 256 -> kernel 1; 24 ->
   * 32 (x 1.33, nearer than 16's x 1.5) -> kernel 1; 20 -> 16 -> kernel 0. */
  int np = 10, nc = 2;
  double *R = table(np, nc, 1.3);
  for (int p = 0; p < np; p++) R[p * nc + (p <= 4 ? 0 : 1)] = 1.0;
  long long *d = line_dims(np);
  sel_input in = {.np = np, .nc = nc, .nv = 1, .R = R, .dims = d, .tol = 0.03, .maxk = 16, .knn = 1};
  sel_result r;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK(r.nset == 2 && r.knn == 1);
  CHECK_MSG(r.loo_full && r.loo_n == 10 && r.loo_judged == 10 && r.loo_within == 9, "loo %d %d %d", r.loo_n,
            r.loo_judged, r.loo_within);
  CHECK(fabs(r.loo_worst - 1 / 1.3) < 1e-12);
  CHECK(fabs(r.loo_geo - exp(log(1 / 1.3) / 10)) < 1e-12);
  long long q;
  int near;
  q = 5;
  CHECK(select_rule(&in, &r, &q, -1, &near) == 0 && near == 2);
  q = 300;
  CHECK(select_rule(&in, &r, &q, -1, &near) == 1 && near == 8);
  q = 24;
  CHECK(select_rule(&in, &r, &q, -1, &near) == 1 && near == 5);
  q = 20;
  CHECK(select_rule(&in, &r, &q, -1, &near) == 0 && near == 4);
  CHECK(select_distance((long long[]){24, 3}, (long long[]){16, 6}, 2) == 3.0);
  select_free(&r);

  /* a noisy label: at N = 8 kernel 1 is a hair faster (1.0 against kernel 0's 1.02, which still
   * covers it), so 8 is assigned kernel 1, which its neighbours' 1-NN rule would copy at 1.3;
   * the sum over 2 nearest shapes does not: auto k (0) chooses k >= 2. At the untuned 9 the
   * nearest shape is 8 (kernel 1) and the next 16 (kernel 0): k = 1 gives kernel 1, k = 2 kernel
   * 0 (1.02 + 1.0 against 1.0 + 1.3). */
  R[3 * nc + 0] = 1.02, R[3 * nc + 1] = 1.0;
  in.knn = 0;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK(r.assign[3] == 1);
  CHECK_MSG(r.knn >= 2, "k = %d", r.knn);
  q = 9;
  CHECK(select_rule(&in, &r, &q, -1, &near) == 0 && near == 4);
  r.knn = 1;
  CHECK(select_rule(&in, &r, &q, -1, &near) == 1 && near == 3);
  select_free(&r);
  CHECK(select_round(1.234567) == 1.2346 && select_round(INFINITY) == INFINITY);
  free(R), free(d);
}

static void test_unmeasured(void) {
  /* shape 2 measured by kernel 2 alone; nothing measured on shape 3: it is not coverable */
  int np = 4, nc = 3;
  double *R = table(np, nc, INFINITY);
  R[0 * nc + 0] = 1.0, R[1 * nc + 0] = 1.0, R[0 * nc + 1] = 1.1, R[2 * nc + 2] = 1.0;
  long long *d = line_dims(np);
  sel_input in = {.np = np, .nc = nc, .nv = 1, .R = R, .dims = d, .tol = 0.03, .maxk = 16, .knn = 1};
  sel_result r;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK(r.nset == 2 && r.set[0] == 0 && r.set[1] == 2 && r.coverable == 3 && r.covered == 3 && r.assign[3] == -1);
  /* leave-one-out: shape 2 gets kernel 0 from its neighbour 1, never measured on it: not judged */
  CHECK_MSG(r.loo_n == 3 && r.loo_judged == 2, "loo %d judged %d", r.loo_n, r.loo_judged);
  select_free(&r);
  for (int i = 0; i < np * nc; i++) R[i] = INFINITY;
  CHECK(select_kernels(&in, &r) == -1);
  select_free(&r);
  free(R), free(d);
}

/* A made-up grid: kernel 0 takes 1024 sizes per block, kernel 1 128, both 8 blocks per SM on one
 * SM: fill = blocks / (waves x 8). */
static double line_fill(void *ctx, int c, const long long *q) {
  (void)ctx;
  long long per = c == 0 ? 1024 : 128, b = (q[0] + per - 1) / per, w = (b + 7) / 8;
  return (double)b / ((double)w * 8.0);
}

static void test_fill(void) {
  /* shapes 1024 (kernel 1 the best, kernel 0 four times slower: it fills an eighth of the GPU),
   * 8192 and 65536 (kernel 0 the best, kernel 1 10 % slower) */
  int np = 3, nc = 2;
  long long d[] = {1024, 8192, 65536}, q[] = {2048};
  double R[] = {4.0, 1.0, 1.0, 1.1, 1.0, 1.1};
  sel_input in = {.np = np,
                  .nc = nc,
                  .nv = 1,
                  .R = R,
                  .dims = d,
                  .tol = 0.03,
                  .maxk = 16,
                  .knn = 1,
                  .fill = line_fill,
                  .use_fill = -1};
  sel_result r;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK_MSG(r.nset == 2 && r.assign[0] == 1 && r.assign[1] == 0, "nset %d", r.nset);
  /* 8192 left out: its nearest (1024 and 65536 tie, the lower index) is 1024, whose own kernel is
   * 1 (1.1 there); with the fill term kernel 0 counts 4 x (1/8) / 1 = 0.5 against 1: kernel 0 */
  CHECK_MSG(r.fill == 1 && r.knn == 1, "fill %d k %d", r.fill, r.knn);
  CHECK(select_rule(&in, &r, d + 1, 1, NULL) == 0);
  r.fill = 0;
  CHECK(select_rule(&in, &r, d + 1, 1, NULL) == 1);
  /* 2048 (never tuned): nearest 1024; kernel 0 fills a quarter there, an eighth at 1024:
   * 4 x (1/8) / (1/4) = 2 against kernel 1's 1 x 1 / 1: kernel 1, with and without the term */
  r.fill = 1;
  CHECK(select_rule(&in, &r, q, -1, NULL) == 1);
  /* a tuned shape itself keeps its own kernel, fill or not */
  CHECK(select_rule(&in, &r, d, -1, NULL) == 1 && select_rule(&in, &r, d + 2, -1, NULL) == 0);
  select_free(&r);
  in.use_fill = 0; /* off: leave-one-out does not try it */
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK(r.fill == 0);
  select_free(&r);
}

static void test_loo_tie(void) {
  /* one kernel best everywhere: every k is as good: auto k takes the largest, 4 */
  int np = 10, nc = 2;
  double *R = table(np, nc, 1.3);
  for (int p = 0; p < np; p++) R[p * nc] = 1.0;
  long long *d = line_dims(np);
  sel_input in = {.np = np, .nc = nc, .nv = 1, .R = R, .dims = d, .tol = 0.03, .maxk = 16, .knn = 0};
  sel_result r;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK_MSG(r.knn == SELECT_K_MAX && r.fill == 0, "k = %d", r.knn);
  select_free(&r);
  /* regimes in runs of two shapes (kernel 0 best at 1, 2, then kernel 1 at 4, 8, ...): 1-NN
   * reaches 0.900 in leave-one-out, k = 2 0.854, k = 3 and 4 0.769: the clear best, k = 1, stays */
  for (int p = 0; p < np; p++) {
    const int a = (p / 2) % 2;
    R[p * nc] = a ? 1.0 : 1.3, R[p * nc + 1] = a ? 1.3 : 1.0;
  }
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK_MSG(r.knn == 1, "k = %d", r.knn);
  select_free(&r);
  /* runs of three: k = 1 and k = 3 tie (0.924 each), k = 2 0.900, k = 4 0.832: the larger of the
   * tied, 3 */
  for (int p = 0; p < np; p++) {
    const int a = (p / 3) % 2;
    R[p * nc] = a ? 1.0 : 1.3, R[p * nc + 1] = a ? 1.3 : 1.0;
  }
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK_MSG(r.knn == 3, "k = %d", r.knn);
  select_free(&r);
  /* two shapes: leave-one-out leaves one neighbour, so k stays 1 */
  in.np = 2;
  for (int p = 0; p < 2; p++) R[p * nc] = 1.0, R[p * nc + 1] = 1.3;
  REQUIRE(select_kernels(&in, &r) == 0);
  CHECK_MSG(r.knn == 1, "k = %d", r.knn);
  select_free(&r);
  free(R), free(d);
}

int main(void) {
  test_redundant_first();
  test_greedy_trap();
  test_cap();
  test_rule();
  test_unmeasured();
  test_fill();
  test_loo_tie();
  return check_report();
}
