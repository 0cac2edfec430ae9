/* test_configset: enumeration with constraint callbacks against brute force on random small
 * spaces; find, neighbours (Hamming and adjacent) against brute force; uniform sampling;
 * a million-combination enumeration timed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "space/configset.h"

/* A random constraint over two parameters a < b: a table of allowed (va, vb) pairs. It is
 * checked when b (the deeper) is bound, as the Lua space does. */
typedef struct rule {
  int a, b;
  unsigned char ok[8][8];
} rule;

typedef struct rspace {
  int np, nv[6];
  int nrules;
  rule rules[6];
  long calls;
} rspace;

static int rs_check(void *ctx, int depth, const uint16_t *row, cterr *err) {
  rspace *r = ctx;
  r->calls++;
  for (int i = 0; i < r->nrules; i++)
    if (r->rules[i].b == depth && !r->rules[i].ok[row[r->rules[i].a]][row[depth]]) return 0;
  return 1;
}

static int rs_valid(const rspace *r, const uint16_t *row) {
  for (int i = 0; i < r->nrules; i++)
    if (!r->rules[i].ok[row[r->rules[i].a]][row[r->rules[i].b]]) return 0;
  return 1;
}

/* next raw row in lexicographic order; 0 when done */
static int raw_next(const rspace *r, uint16_t *row) {
  for (int p = r->np - 1; p >= 0; p--) {
    if (++row[p] < r->nv[p]) return 1;
    row[p] = 0;
  }
  return 0;
}

static configset *make_set(const rspace *r) {
  configset *cs = configset_new();
  cterr e;
  for (int p = 0; p < r->np; p++) {
    char name[16], *str[16];
    snprintf(name, sizeof name, "P%d", p);
    for (int v = 0; v < r->nv[p]; v++) str[v] = xasprintf("%d", v * 2 + p);
    REQUIRE(configset_add_param(cs, name, r->nv[p], (const char *const *)str, NULL, &e) == p);
    for (int v = 0; v < r->nv[p]; v++) free(str[v]);
  }
  return cs;
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : x > y;
}

static void test_random_spaces(void) {
  rng g;
  rng_seed(&g, 12345);
  int nonempty = 0;
  for (int trial = 0; trial < 60; trial++) {
    rspace r = {0};
    r.np = 1 + (int)rng_below(&g, 5);
    for (int p = 0; p < r.np; p++) r.nv[p] = 1 + (int)rng_below(&g, 6);
    r.nrules = r.np > 1 ? (int)rng_below(&g, 5) : 0;
    for (int i = 0; i < r.nrules; i++) {
      rule *ru = &r.rules[i];
      ru->b = 1 + (int)rng_below(&g, (uint64_t)r.np - 1);
      ru->a = (int)rng_below(&g, (uint64_t)ru->b);
      for (int x = 0; x < 8; x++)
        for (int y = 0; y < 8; y++) ru->ok[x][y] = rng_uniform(&g) < 0.7;
    }
    configset *cs = make_set(&r);
    cterr e;
    REQUIRE(configset_enumerate(cs, rs_check, &r, &e) == 0);

    /* brute force: every valid raw row, in lexicographic order, is row k of the set */
    uint16_t row[CS_MAX_PARAMS] = {0};
    size_t k = 0;
    long raw = 0;
    do {
      raw++;
      long idx = configset_find(cs, row);
      if (rs_valid(&r, row)) {
        CHECK_MSG(idx == (long)k, "trial %d: valid row expected at %zu, found at %ld", trial, k, idx);
        k++;
      } else CHECK_MSG(idx == -1, "trial %d: invalid row found at %ld", trial, idx);
    } while (raw_next(&r, row));
    CHECK_MSG(configset_count(cs) == k, "trial %d: count %zu, brute force %zu", trial, configset_count(cs), k);
    CHECK(raw == (long)configset_raw_size(cs));
    /* pruning: with rules, fewer checks than a check of every raw row at every depth */
    CHECK(r.calls <= raw * r.np);
    nonempty += k > 0;

    /* neighbours against brute force over all valid rows */
    size_t n = configset_count(cs);
    size_t *got = xmalloc((n + 1) * sizeof(size_t)), *want = xmalloc((n + 1) * sizeof(size_t));
    for (int kind = 0; kind < 2; kind++)
      for (size_t i = 0; i < n; i++) {
        const uint16_t *ri = configset_row(cs, i);
        size_t nw = 0;
        for (size_t j = 0; j < n; j++) {
          const uint16_t *rj = configset_row(cs, j);
          int diff = 0, far = 0;
          for (int p = 0; p < r.np; p++)
            if (ri[p] != rj[p]) diff++, far |= abs((int)ri[p] - (int)rj[p]) != 1;
          if (diff == 1 && (kind == CS_HAMMING || !far)) want[nw++] = j;
        }
        size_t ng = configset_neighbours(cs, i, (cs_neighbour_kind)kind, got, n + 1);
        CHECK_MSG(ng == nw, "trial %d row %zu kind %d: %zu neighbours, brute force %zu", trial, i, kind, ng, nw);
        if (ng == nw) {
          qsort(got, ng, sizeof(size_t), cmp_size);
          CHECK(memcmp(got, want, ng * sizeof(size_t)) == 0);
        }
        /* max limits what is written, not what is counted */
        if (nw > 1) CHECK(configset_neighbours(cs, i, (cs_neighbour_kind)kind, got, 1) == nw);
      }
    free(got), free(want);
    configset_free(cs);
  }
  CHECK(nonempty > 30);
}

static void test_add_find_key(void) {
  rspace r = {.np = 3, .nv = {2, 3, 4}};
  configset *cs = make_set(&r);
  uint16_t a[3] = {1, 2, 3}, b[3] = {0, 0, 1};
  CHECK(configset_add(cs, a) == 0);
  CHECK(configset_add(cs, b) == 1);
  CHECK(configset_add(cs, a) == 0); /* duplicates keep their index */
  CHECK(configset_count(cs) == 2);
  CHECK(configset_find(cs, b) == 1);
  char *key = configset_row_key(cs, a);
  CHECK(!strcmp(key, "P0=2,P1=5,P2=8"));
  free(key);
  CHECK(configset_param_index(cs, "P2") == 2 && configset_param_index(cs, "nope") == -1);
  cterr e;
  const char *v[] = {"1"};
  CHECK(configset_add_param(cs, "LATE", 1, v, NULL, &e) == -1); /* after rows exist */
  configset_free(cs);
  cs = configset_new();
  CHECK(configset_add_param(cs, "X", 0, v, NULL, &e) == -1);
  CHECK(configset_add_param(cs, "X", 1, v, NULL, &e) == 0);
  CHECK(configset_add_param(cs, "X", 1, v, NULL, &e) == -1);
  CHECK_STR_CONTAINS(e.msg, "declared twice");
  configset_free(cs);
}

static void test_sample(void) {
  rspace r = {.np = 3, .nv = {4, 5, 3}, .nrules = 1};
  r.rules[0].a = 0, r.rules[0].b = 2;
  for (int x = 0; x < 8; x++)
    for (int y = 0; y < 8; y++) r.rules[0].ok[x][y] = (x + y) % 3 != 0;
  configset *cs = make_set(&r);
  cterr e;
  REQUIRE(configset_enumerate(cs, rs_check, &r, &e) == 0);
  size_t n = configset_count(cs);
  REQUIRE(n > 10);
  long *hits = xcalloc(n, sizeof(long));
  rng g;
  rng_seed(&g, 7);
  long draws = (long)n * 4000;
  for (long i = 0; i < draws; i++) {
    size_t k = configset_sample(cs, &g);
    REQUIRE(k < n);
    hits[k]++;
  }
  /* every row drawn, each within 10% of its share (4000 expected: sd ~63, so 6 sigma) */
  double chi2 = 0;
  for (size_t k = 0; k < n; k++) {
    CHECK_MSG(hits[k] > 3600 && hits[k] < 4400, "row %zu drawn %ld times of %ld", k, hits[k], draws);
    chi2 += (hits[k] - 4000.0) * (hits[k] - 4000.0) / 4000.0;
  }
  /* chi-square with n-1 degrees of freedom: mean n-1, sd sqrt(2(n-1)); allow 6 sd */
  CHECK_MSG(chi2 < (n - 1) + 6 * sqrt(2.0 * (n - 1)), "chi2 %.1f over %zu rows", chi2, n);
  free(hits);
  configset_free(cs);
}

/* six parameters of ten values, a rule at depth 5 that keeps almost everything: the worst
 * case for the walk (every raw row reaches the last depth) */
static int keep_most(void *ctx, int depth, const uint16_t *row, cterr *err) {
  (*(long *)ctx)++;
  return depth < 5 || (row[0] + row[5]) % 7 != 3;
}

static void test_million(void) {
  rspace r = {.np = 6, .nv = {10, 10, 10, 10, 10, 10}};
  configset *cs = make_set(&r);
  cterr e;
  long calls = 0;
  double t0 = now_seconds();
  REQUIRE(configset_enumerate(cs, keep_most, &calls, &e) == 0);
  double t = now_seconds() - t0;
  size_t expect = 0;
  for (int a = 0; a < 10; a++)
    for (int f = 0; f < 10; f++) expect += (a + f) % 7 != 3;
  expect *= 10000;
  CHECK_MSG(configset_count(cs) == expect, "count %zu, expected %zu", configset_count(cs), expect);
  CHECK(configset_raw_size(cs) == 1e6);
  fprintf(stderr, "1,000,000 raw combinations: %zu valid in %.3f s (%ld checks)\n", configset_count(cs), t, calls);
  /* the index is usable afterwards */
  uint16_t row[6] = {9, 9, 9, 9, 9, 9};
  CHECK(configset_find(cs, row) == (long)configset_count(cs) - 1);
  size_t nb[64];
  CHECK(configset_neighbours(cs, configset_count(cs) - 1, CS_ADJACENT, nb, 64) > 0);
  configset_free(cs);
}

/* configset_cover: distinct valid rows that use every value some valid row has; values no
 * valid row has are left out; far fewer rows than the space */
static void test_cover(void) {
  rspace r = {.np = 4, .nv = {6, 4, 3, 5}, .nrules = 2};
  r.rules[0].a = 0, r.rules[0].b = 1;
  r.rules[1].a = 1, r.rules[1].b = 3;
  for (int x = 0; x < 8; x++)
    for (int y = 0; y < 8; y++) {
      r.rules[0].ok[x][y] = (x + y) % 3 != 0;
      r.rules[1].ok[x][y] = y != 4; /* value 4 of P3 is in no valid row */
    }
  configset *cs = make_set(&r);
  cterr e;
  REQUIRE(configset_enumerate(cs, rs_check, &r, &e) == 0);
  size_t n = configset_count(cs), out[64];
  for (uint64_t seed = 1; seed <= 5; seed++) {
    rng g;
    rng_seed(&g, seed);
    size_t k = configset_cover(cs, &g, out, 64);
    CHECK_MSG(k >= 6 && k <= 10, "cover of %zu rows", k); /* at least the 6 values of P0 */
    int used[4][8] = {{0}};
    for (size_t i = 0; i < k; i++) {
      REQUIRE(out[i] < n);
      for (size_t j = 0; j < i; j++) CHECK(out[j] != out[i]);
      const uint16_t *row = configset_row(cs, out[i]);
      for (int p = 0; p < 4; p++) used[p][row[p]] = 1;
    }
    for (int p = 0; p < 4; p++)
      for (int v = 0; v < r.nv[p]; v++) CHECK_MSG(used[p][v] == !(p == 3 && v == 4), "P%d value %d", p, v);
  }
  rng g;
  rng_seed(&g, 1);
  CHECK(configset_cover(cs, &g, out, 2) == 2); /* max is honoured */
  configset_free(cs);
}

int main(void) {
  test_cover();
  test_random_spaces();
  test_add_find_key();
  test_sample();
  test_million();
  return check_report();
}
