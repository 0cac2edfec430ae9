/* test_check_hash: the check hash of a space's problems (tuner/engine/job_check.c), which a
 * stored record must match to answer a run: the same check gives the same hash, a changed
 * comparison (mismatches, timing only, the check kernel's source) another, and the same
 * comparison spelt at the space's check or at the output the same; a buffer's data from the
 * space (a values function) gives the same hash run after run (its math.random is seeded) and
 * another when it changes; so does a symbol's data (a table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engine/job.h"

static char tmpdir[512];

/* The check hash of problem prob of the space at path, under the environment variable name set
 * to value (NULL: unset) while the space loads (the fixtures read their check from it). */
static void hash_of(const char *path, const char *name, const char *value, int prob, char out[33]) {
  if (name && value) setenv(name, value, 1);
  space *s = NULL;
  cterr e;
  int rc = space_load(path, &s, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  REQUIRE(rc == 0);
  if (name) unsetenv(name);
  compile_source src;
  compile_source_init(&src);
  REQUIRE(job_load_source(s, &src, &e) == 0);
  char(*h)[33] = xcalloc((size_t)space_nproblems(s), sizeof *h);
  rc = job_check_hashes(s, &src, h, &e);
  CHECK_MSG(rc == 0, "%s", e.msg);
  memcpy(out, h[prob], 33);
  CHECK(strlen(out) == 32);
  free(h);
  compile_source_free(&src);
  space_free(s);
}

/* fake_mismatches.lua: the output's mismatches from FAKE_MM_OUTPUT, check.mismatches from FAKE_MM_SPACE */
static void test_mismatches(void) {
  const char *p = "tests/spaces/realk/fake_mismatches.lua";
  char h0[33], again[33], out64[33], space64[33], out128[33];
  hash_of(p, NULL, NULL, 0, h0);
  hash_of(p, NULL, NULL, 0, again);
  CHECK(!strcmp(h0, again)); /* the same check: the same hash, run after run */
  hash_of(p, "FAKE_MM_OUTPUT", "64", 0, out64);
  hash_of(p, "FAKE_MM_SPACE", "64", 0, space64);
  hash_of(p, "FAKE_MM_OUTPUT", "128", 0, out128);
  CHECK(strcmp(h0, out64) != 0);
  CHECK(strcmp(out64, out128) != 0);
  CHECK_MSG(!strcmp(out64, space64), "the same comparison spelt at the space: %s, at the output: %s", space64, out64);
}

/* fake_reduce.lua: a reduce check, or timing only (FAKE_UNCHECKED) */
static void test_unchecked(void) {
  char checked[33], unchecked[33];
  hash_of("tests/spaces/realk/fake_reduce.lua", NULL, NULL, 0, checked);
  hash_of("tests/spaces/realk/fake_reduce.lua", "FAKE_UNCHECKED", "1", 0, unchecked);
  CHECK(strcmp(checked, unchecked) != 0);
}

/* fake_csr.lua: row offsets from a values function (FAKE_CSR_SHIFT: one moved), or the seeded
 * fill (FAKE_CSR=random) */
static void test_data(void) {
  const char *p = "tests/spaces/data/fake_csr.lua";
  char h0[33], again[33], shifted[33], seeded[33], h1[33];
  hash_of(p, NULL, NULL, 0, h0);
  hash_of(p, NULL, NULL, 0, again);
  CHECK_MSG(!strcmp(h0, again), "the same values function, two hashes: %s, %s", h0, again);
  hash_of(p, "FAKE_CSR_SHIFT", "1", 0, shifted);
  hash_of(p, "FAKE_CSR", "random", 0, seeded);
  hash_of(p, NULL, NULL, 1, h1);
  CHECK(strcmp(h0, shifted) != 0);
  CHECK(strcmp(h0, seeded) != 0);
  CHECK(strcmp(h0, h1) != 0);
}

/* fake_const.lua: a __constant__ symbol filled from a Lua table, zeros or (FAKE_ONES) ones: other
 * symbol data, another hash */
static void test_symbol_data(void) {
  const char *p = "tests/spaces/realk/fake_const.lua";
  char zeros[33], again[33], ones[33];
  hash_of(p, NULL, NULL, 0, zeros);
  hash_of(p, NULL, NULL, 0, again);
  hash_of(p, "FAKE_ONES", "1", 0, ones);
  CHECK(!strcmp(zeros, again));
  CHECK_MSG(strcmp(zeros, ones) != 0, "the symbol's data changed, the hash did not: %s", zeros);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  REQUIRE(f);
  fputs(text, f);
  fclose(f);
}

/* A check kernel in a file of its own: editing it changes the hash, editing nothing does not;
 * problems of other sizes have hashes of their own. */
static void test_check_kernel(void) {
  char *space_path = xasprintf("%s/chk.lua", tmpdir), *cu = xasprintf("%s/k.cu", tmpdir);
  char *chk = xasprintf("%s/chk.cu", tmpdir);
  write_file(cu, "extern \"C\" __global__ void k(float *o) {}\n");
  write_file(chk,
             "extern \"C\" __global__ void user_check(const float *o, const float *r, unsigned long long n,\n"
             "                                      unsigned long long *res) {}\n");
  write_file(space_path,
             "local ct = require \"cutune\"\n"
             "return ct.space { name = \"chk\", template = \"k.cu\", kernel = \"k\",\n"
             "  params = { ct.param(\"B\", {64}) }, problems = { {n = 4096}, {n = 8192} },\n"
             "  args = { ct.output(\"float\", \"n\") }, block = {64}, grid = {1},\n"
             "  reference = { kernel = \"k\", block = {64}, grid = {1} },\n"
             "  check = { kernel = \"user_check\", template = \"chk.cu\" } }\n");
  char a[33], same[33], other_problem[33], edited[33];
  hash_of(space_path, NULL, NULL, 0, a);
  hash_of(space_path, NULL, NULL, 0, same);
  hash_of(space_path, NULL, NULL, 1, other_problem);
  CHECK(!strcmp(a, same));
  CHECK(strcmp(a, other_problem) != 0); /* n: another count of elements compared */
  write_file(chk,
             "extern \"C\" __global__ void user_check(const float *o, const float *r, unsigned long long n,\n"
             "                                      unsigned long long *res) { res[0] = n; }\n");
  hash_of(space_path, NULL, NULL, 0, edited);
  CHECK(strcmp(a, edited) != 0);
  free(space_path), free(cu), free(chk);
}

int main(void) {
  const char *base = getenv("CUTUNE_TMP");
  if (!base || !*base) base = "/tmp";
  cterr err;
  mkdir_p(base, &err);
  snprintf(tmpdir, sizeof tmpdir, "%s/test_check_hash.XXXXXX", base);
  REQUIRE(mkdtemp(tmpdir));
  test_mismatches();
  test_unchecked();
  test_check_kernel();
  test_data();
  test_symbol_data();
  return check_report();
}
