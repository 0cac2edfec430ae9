/* test_replay_inputs: what replay and the record readers do with inputs that go wrong — the
 * Kernel Tuner cache entry that lacks a parameter (a use-after-free once), times that are
 * not positive, a gzip-compressed cutune store, a gzip file that inflates past the cap,
 * garbage lines, and duplicate keys (both record readers reject them). Fixtures are written
 * here, small, so the test runs anywhere (no ../shared). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "search/replay.h"
#include "store/record_json.h"
#include "store/store.h"

static char dir[512];

static const char *put(const char *name, const char *text) {
  static char path[4][1024];
  static int k;
  char *p = path[k++ % 4];
  snprintf(p, 1024, "%s/%s", dir, name);
  FILE *f = fopen(p, "w");
  REQUIRE(f != NULL);
  fputs(text, f);
  fclose(f);
  return p;
}

static void record_line(dbuf *b, const char *config, const char *v, double t) {
  record r;
  record_init(&r);
  record_set_str(&r.space, "s");
  record_set_str(&r.config, config);
  record_set_str(&r.problem, "N=1");
  r.nparams = 1;
  r.pname[0] = strdup("A");
  r.pvalue[0] = strdup(v);
  r.t_median = t;
  r.samples = 10;
  record_to_json(&r, b);
  dbuf_puts(b, "\n");
  record_free(&r);
}

int main(void) {
  const char *t = getenv("CUTUNE_TMP");
  snprintf(dir, sizeof dir, "%s", t && *t ? t : "/tmp");
  cterr e = {0};
  mkdir_p(dir, &e);
  replay *r = NULL;

  /* 1. a cache entry without the parameter: the message names it (it was read after free) */
  const char *p = put("kt_missing.json",
                      "{\"tune_params_keys\":[\"a\"],\"tune_params\":{\"a\":[1]},\"cache\":{\"x\":{\"time\":1}}}");
  CHECK(replay_load(p, NULL, &r, &e) == -1 && r == NULL);
  CHECK_STR_CONTAINS(e.msg, "cache entry \"x\": parameter 'a' is missing");
  p = put("kt_badvalue.json",
          "{\"tune_params_keys\":[\"a\"],\"tune_params\":{\"a\":[1]},\"cache\":{\"x\":{\"a\":2,\"time\":1}}}");
  CHECK(replay_load(p, NULL, &r, &e) == -1);
  CHECK_STR_CONTAINS(e.msg, "parameter 'a' has a value that is not one of tune_params");

  /* 2. zero and negative times count as failed, with a warning each */
  p = put("kt_times.json",
          "{\"tune_params_keys\":[\"a\"],\"tune_params\":{\"a\":[1,2,3]},\"cache\":{"
          "\"1\":{\"a\":1,\"time\":0},\"2\":{\"a\":2,\"time\":-11},\"3\":{\"a\":3,\"time\":2.5}}}");
  REQUIRE(replay_load(p, NULL, &r, &e) == 0);
  CHECK(replay_count(r) == 3 && replay_nfailed(r) == 2);
  CHECK(replay_optimum(r) >= 0 && replay_value(r, (size_t)replay_optimum(r)) == 2.5);
  CHECK_STR_CONTAINS(replay_warnings(r), "cache entry \"1\": time 0 is not a positive time; counted as failed");
  CHECK_STR_CONTAINS(replay_warnings(r), "time -11 is not a positive time");
  replay_free(r), r = NULL;

  /* 3. a cutune store: garbage lines are warned about with file:line; zero times fail */
  dbuf b;
  dbuf_init(&b);
  record_line(&b, "A=1", "1", 3.0);
  dbuf_puts(&b, "this is not JSON\n");
  record_line(&b, "A=2", "2", 0.0);
  record_line(&b, "A=3", "3", 1.5);
  p = put("store.jsonl", b.data);
  REQUIRE(replay_load(p, NULL, &r, &e) == 0);
  CHECK(replay_count(r) == 3 && replay_nfailed(r) == 1);
  char want[1200];
  snprintf(want, sizeof want, "%s:2: not a cutune record", p);
  CHECK_STR_CONTAINS(replay_warnings(r), want);
  CHECK_STR_CONTAINS(replay_warnings(r), "(A=2): time 0 is not a positive time");
  replay_free(r), r = NULL;

  /* 4. the same store gzip-compressed replays too (it said "no records") */
  char gzp[1100];
  snprintf(gzp, sizeof gzp, "%s/store.jsonl.gz", dir);
  gzFile gz = gzopen(gzp, "wb");
  REQUIRE(gz != NULL);
  gzwrite(gz, b.data, (unsigned)b.len);
  gzclose(gz);
  e.msg[0] = 0;
  CHECK_MSG(replay_load(gzp, NULL, &r, &e) == 0, "%s", e.msg);
  CHECK(r && replay_count(r) == 3);
  replay_free(r), r = NULL;
  dbuf_free(&b);

  /* 5. a small gzip file that inflates past the cap stops at the cap */
  setenv("CUTUNE_MAX_INPUT_MB", "1", 1);
  snprintf(gzp, sizeof gzp, "%s/bomb.json.gz", dir);
  gz = gzopen(gzp, "wb");
  REQUIRE(gz != NULL);
  static char zeros[65536];
  for (int i = 0; i < 40; i++) gzwrite(gz, zeros, sizeof zeros);
  gzclose(gz);
  CHECK(replay_load(gzp, NULL, &r, &e) == -1);
  CHECK_STR_CONTAINS(e.msg, "decompressed larger than 1.0 MiB (the cap; raise it with CUTUNE_MAX_INPUT_MB=N)");
  unsetenv("CUTUNE_MAX_INPUT_MB");
  CHECK(replay_load("/dev/zero", NULL, &r, &e) == -1);
  CHECK_STR_CONTAINS(e.msg, "not a regular file");

  /* 6. duplicate keys: both readers reject them (the fast one declined only some, and let
   * jansson take the last value of the rest) */
  dbuf_init(&b);
  record_line(&b, "A=1", "1", 3.0);
  b.data[--b.len] = 0;
  record rec;
  REQUIRE(record_from_json(b.data, &rec, &e) == 0);
  record_free(&rec);
  const char *dups[] = {"{\"status\":\"ok\",", "{\"config\":null,", "{\"zz\":1,\"zz\":2,", "{\"x\":{\"k\":1,\"k\":2},"};
  for (size_t i = 0; i < sizeof dups / sizeof *dups; i++) {
    char *line = xasprintf("%s%s", dups[i], b.data + 1);
    e.msg[0] = 0;
    int rc = record_from_json(line, &rec, &e);
    if (i == 3) CHECK_MSG(rc == -1, "nested duplicate accepted: %s", line);
    else CHECK_MSG(rc == -1, "duplicate accepted: %.60s", line);
    if (rc == -1) CHECK_STR_CONTAINS(e.msg, "duplicate");
    record_free(&rec);
    free(line);
  }
  dbuf_free(&b);
  return check_report();
}
