/* test_replay: the project's own Kernel Tuner cache fixtures (tests/fixtures/kt, written by
 * tests/fixtures/make_fixtures.sh) and its cutune store fixture load and match an independent
 * reading of the same file; noisy draws come from the recorded repetitions; cutune JSONL
 * files; a space's configset mapped onto a file; the replay command's options. Where
 * ../shared/data/tuning-caches exists, every file there is checked the same way too. */
#include <glob.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "check.h"
#include "search/replay.h"
#include "search/score.h"

/* Independent reading: entries, failures and the minimum numeric time, straight from jansson. */
static void check_file(const char *path) {
  replay *r;
  cterr err;
  int ok = replay_load(path, NULL, &r, &err) == 0;
  CHECK_MSG(ok, "%s: %s", path, err.msg);
  if (!ok) return;
  dbuf b;
  dbuf_init(&b);
  REQUIRE(replay_read_file(path, &b, &err) == 0);
  json_t *root = json_loadb(b.data, b.len, 0, NULL);
  dbuf_free(&b);
  REQUIRE(root);
  json_t *cache = json_object_get(root, "cache");
  size_t n = json_object_size(cache), failed = 0;
  double best = INFINITY;
  const char *key, *best_key = NULL;
  json_t *e;
  json_object_foreach(cache, key, e) {
    json_t *t = json_object_get(e, "time");
    if (!json_is_number(t)) failed++;
    else if (json_number_value(t) < best) best = json_number_value(t), best_key = key;
  }
  CHECK_MSG(replay_count(r) == n, "%s: %zu configurations, file has %zu", path, replay_count(r), n);
  CHECK(configset_count(replay_configs(r)) == n);
  CHECK_MSG(replay_nfailed(r) == failed, "%s: %zu failed, file has %zu", path, replay_nfailed(r), failed);
  if (strstr(path, "pnpoly/")) CHECK(n == 4092);
  if (strstr(path, "convolution/")) CHECK(n == 4362);
  if (strstr(path, "toy_stencil_A")) CHECK(n == 384 && failed == 64);
  if (strstr(path, "toy_stencil_B")) CHECK(n == 384 && failed == 63);
  long opt = replay_optimum(r);
  REQUIRE(opt >= 0);
  CHECK_MSG(replay_value(r, (size_t)opt) == best, "%s: optimum %g, file minimum %g", path, replay_value(r, (size_t)opt),
            best);
  /* the optimum's row spells the file's key */
  json_t *keys = json_object_get(root, "tune_params_keys");
  const configset *cs = replay_configs(r);
  dbuf k;
  dbuf_init(&k);
  for (size_t p = 0; p < json_array_size(keys); p++)
    dbuf_printf(&k, "%s%s", p ? "," : "", configset_param(cs, (int)p)->str[configset_row(cs, (size_t)opt)[p]]);
  CHECK_MSG(best_key && !strcmp(k.data, best_key), "%s: optimum key %s, file %s", path, k.data, best_key);
  dbuf_free(&k);
  /* noisy draws are recorded repetitions of that configuration */
  json_t *times = json_object_get(json_object_get(cache, best_key), "times");
  CHECK((size_t)replay_nreps(r, (size_t)opt) == json_array_size(times));
  replay_eval ev = {.r = r, .noisy = 1};
  rng_seed(&ev.rng, 3);
  int distinct = 0;
  double first = NAN;
  for (int t = 0; t < 50; t++) {
    double v, cost;
    rec_status st;
    CHECK(replay_evaluate(&ev, (size_t)opt, &v, &cost, &st, &err) == 0);
    int found = 0;
    for (size_t q = 0; q < json_array_size(times); q++) found |= json_number_value(json_array_get(times, q)) == v;
    CHECK_MSG(found, "%s: noisy value %g is not one of the recorded times", path, v);
    if (t == 0) first = v;
    else distinct |= v != first;
    CHECK(st == ST_OK && cost > 0);
  }
  if (json_array_size(times) > 1) CHECK(distinct);
  json_decref(root);
  replay_free(r);
}

static void write_text(const char *path, const char *text, int gz) {
  if (gz) {
    gzFile g = gzopen(path, "wb");
    REQUIRE(g);
    gzputs(g, text);
    gzclose(g);
  } else {
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs(text, f);
    fclose(f);
  }
}

static const char *kt_small =
    "{\"device_name\": \"Toy GPU\", \"kernel_name\": \"toy\", \"tune_params_keys\": [\"bx\", \"t\"],\n"
    " \"tune_params\": {\"bx\": [32, 64, 128], \"t\": [1, 2]},\n"
    " \"cache\": {\n"
    "  \"32,1\": {\"bx\": 32, \"t\": 1, \"time\": 3.0, \"times\": [2.9, 3.1], \"compile_time\": 100},\n"
    "  \"64,1\": {\"bx\": 64, \"t\": 1, \"time\": 2.0, \"times\": [1.9, 2.1], \"compile_time\": 100},\n"
    "  \"64,2\": {\"bx\": 64, \"t\": 2, \"time\": \"CompilationFailedConfig\"},\n"
    "  \"128,2\": {\"bx\": 128, \"t\": 2, \"time\": \"InvalidConfig\"},\n"
    "  \"128,1\": {\"bx\": 128, \"t\": 1, \"time\": \"RuntimeFailedConfig\"}}}\n";

static void test_small_files(const char *tmp) {
  char *plain = path_join(tmp, "toy.json"), *gz = path_join(tmp, "toy.json.gz");
  write_text(plain, kt_small, 0);
  write_text(gz, kt_small, 1);
  const char *paths[] = {plain, gz};
  for (int i = 0; i < 2; i++) {
    replay *r;
    cterr err;
    REQUIRE(replay_load(paths[i], NULL, &r, &err) == 0);
    CHECK(replay_count(r) == 5 && replay_nfailed(r) == 3);
    const configset *cs = replay_configs(r);
    uint16_t row[2] = {1, 0}; /* bx=64, t=1 */
    long j = configset_find(cs, row);
    CHECK(j >= 0 && replay_optimum(r) == j && replay_value(r, (size_t)j) == 2.0);
    row[1] = 1;
    j = configset_find(cs, row);
    CHECK(j >= 0 && replay_status(r, (size_t)j) == ST_COMPILE_ERROR && isinf(replay_value(r, (size_t)j)));
    row[0] = 2;
    j = configset_find(cs, row);
    CHECK(j >= 0 && replay_status(r, (size_t)j) == ST_INVALID);
    row[1] = 0;
    j = configset_find(cs, row);
    CHECK(j >= 0 && replay_status(r, (size_t)j) == ST_RUNTIME_FAULT);
    row[0] = 0, row[1] = 1; /* 32,2 is not in the file: not a valid configuration */
    CHECK(configset_find(cs, row) < 0);
    CHECK_STR_CONTAINS(replay_title(r), "Toy GPU");
    replay_free(r);
  }
  /* a space's configset (parameters in another order, one value the file lacks) */
  configset *sp = configset_new();
  cterr err;
  const char *t[] = {"1", "2"}, *bx[] = {"32", "64", "256"};
  configset_add_param(sp, "t", 2, t, NULL, &err);
  configset_add_param(sp, "bx", 3, bx, NULL, &err);
  configset_enumerate(sp, NULL, NULL, &err);
  replay *r;
  REQUIRE(replay_load_for(gz, NULL, sp, &r, &err) == 0);
  CHECK(replay_count(r) == 6);
  uint16_t row[2] = {0, 1}; /* t=1, bx=64 */
  long j = configset_find(sp, row);
  CHECK(replay_optimum(r) == j && replay_value(r, (size_t)j) == 2.0);
  row[1] = 2; /* bx=256: not in the file, counts as failed */
  j = configset_find(sp, row);
  CHECK(replay_status(r, (size_t)j) == ST_INVALID && isinf(replay_value(r, (size_t)j)));
  CHECK(replay_nfailed(r) == 4); /* 32,2 / 256,1 / 256,2 not in the file; 64,2 failed to compile */
  replay_free(r);
  configset *bad = configset_new();
  configset_add_param(bad, "bx", 3, bx, NULL, &err);
  configset_add_param(bad, "unroll", 2, t, NULL, &err);
  configset_enumerate(bad, NULL, NULL, &err);
  CHECK(replay_load_for(gz, NULL, bad, &r, &err) < 0); /* the file's t is not in this space */
  CHECK_STR_CONTAINS(err.msg, "parameter 't' of the recorded file is not a parameter of the space");
  configset *bad2 = configset_new();
  configset_add_param(bad2, "bx", 3, bx, NULL, &err);
  configset_add_param(bad2, "t", 2, t, NULL, &err);
  configset_add_param(bad2, "unroll", 2, t, NULL, &err);
  configset_enumerate(bad2, NULL, NULL, &err);
  CHECK(replay_load_for(gz, NULL, bad2, &r, &err) < 0);
  CHECK_STR_CONTAINS(err.msg, "parameter 'unroll' of the space is not in the recorded file");
  configset_free(bad), configset_free(bad2), configset_free(sp);
  free(plain), free(gz);
}

static void test_cutune_jsonl(const char *tmp) {
  char *path = path_join(tmp, "toy.jsonl");
  const char *text =
      "{\"space\": \"toy\", \"config\": \"TILE=32,PAD=0\", \"params\": {\"TILE\": \"32\", \"PAD\": \"0\"}, "
      "\"problem\": \"N=1024\", \"status\": \"ok\", \"t_median\": 2.5}\n"
      "{\"space\": \"toy\", \"config\": \"TILE=16,PAD=1\", \"params\": {\"TILE\": \"16\", \"PAD\": \"1\"}, "
      "\"problem\": \"N=1024\", \"status\": \"ok\", \"t_median\": 1.5}\n"
      "{\"space\": \"toy\", \"config\": \"TILE=64,PAD=1\", \"params\": {\"TILE\": \"64\", \"PAD\": \"1\"}, "
      "\"problem\": \"N=1024\", \"status\": \"compile_error\"}\n"
      "{\"space\": \"toy\", \"config\": \"TILE=16,PAD=1\", \"params\": {\"TILE\": \"16\", \"PAD\": \"1\"}, "
      "\"problem\": \"N=2048\", \"status\": \"ok\", \"t_median\": 6.0}\n"
      "{\"space\": \"toy\", \"config\": \"TILE=32,PAD=0\", \"params\": {\"TILE\": \"32\", \"PAD\": \"0\"}, "
      "\"problem\": \"N=2048\", \"status\": \"ok\", \"t_median\": 5.0}\n"
      "{\"params\": {\"TILE\": \"32\", \"PAD\""; /* a torn last line */
  write_text(path, text, 0);
  replay *r;
  cterr err;
  int lrc = replay_load(path, NULL, &r, &err);
  if (lrc) fprintf(stderr, "%s\n", err.msg);
  REQUIRE(lrc == 0);
  CHECK(replay_count(r) == 3 && replay_nfailed(r) == 1);
  CHECK(!strcmp(replay_problem(r), "N=1024"));
  const configset *cs = replay_configs(r);
  CHECK(!strcmp(configset_param(cs, 0)->str[0], "16")); /* numeric values sorted */
  CHECK(replay_value(r, (size_t)replay_optimum(r)) == 1.5);
  replay_free(r);
  REQUIRE(replay_load(path, "N=2048", &r, &err) == 0);
  CHECK(replay_count(r) == 2 && replay_value(r, (size_t)replay_optimum(r)) == 5.0);
  replay_free(r);
  CHECK(replay_load(path, "N=1", &r, &err) < 0);
  CHECK_STR_CONTAINS(err.msg, "no records for problem 'N=1'");
  free(path);
}

static void test_command(const char *file) {
  fflush(stdout);
  char *ok[] = {"run", "--replay", (char *)file, "--strategy", "ga", "--budget", "30", "--seed", "4", "--noisy", NULL};
  CHECK(search_replay_main(10, ok) == 0);
  char *bad[] = {"run", "--replay", (char *)file, "--strategy", "simplex", NULL};
  CHECK(search_replay_main(5, bad) != 0);
  char *bad2[] = {"run", "--replay", (char *)file, "--budget", "-3", NULL};
  CHECK(search_replay_main(5, bad2) == 2);
  char *bad3[] = {"run", "--replay", NULL};
  CHECK(search_replay_main(2, bad3) == 2);
  fflush(stdout);
}

int main(void) {
  const char *tmp = getenv("CUTUNE_TMP") ? getenv("CUTUNE_TMP") : "/tmp";
  cterr err;
  REQUIRE(mkdir_p(tmp, &err) == 0);
  test_small_files(tmp);
  test_cutune_jsonl(tmp);
  /* the fixtures of the project's own: always there */
  const char *src = getenv("CUTUNE_SRC") ? getenv("CUTUNE_SRC") : ".";
  char *fixtures = xasprintf("%s/tests/fixtures/kt/*.json.gz", src);
  glob_t g;
  REQUIRE(glob(fixtures, 0, NULL, &g) == 0 && g.gl_pathc == 2);
  for (size_t i = 0; i < g.gl_pathc; i++) check_file(g.gl_pathv[i]);
  test_command(g.gl_pathv[0]);
  globfree(&g);
  free(fixtures);
  /* the fixture store: two problems, a compile error and a wrong result */
  char *storefix = xasprintf("%s/tests/fixtures/store/toy.jsonl", src);
  replay *r;
  cterr e2;
  REQUIRE(replay_load(storefix, "N=2048", &r, &e2) == 0 || !fprintf(stderr, "%s\n", e2.msg));
  CHECK(replay_count(r) == 9 && replay_nfailed(r) == 2);
  CHECK(fabs(replay_value(r, (size_t)replay_optimum(r)) - 3.0) < 1e-9); /* TILE=32,PAD=1 */
  replay_free(r);
  free(storefix);
  /* and, where the shared data set is there, every file of it */
  const char *shared = getenv("CUTUNE_SHARED");
  if (shared) {
    char *pattern = xasprintf("%s/data/tuning-caches/*/*.json.gz", shared);
    if (glob(pattern, 0, NULL, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; i++) check_file(g.gl_pathv[i]);
      globfree(&g);
    } else {
      fprintf(stderr, "no shared tuning caches at %s: checked the fixtures only\n", pattern);
    }
    free(pattern);
  }
  return check_report();
}
