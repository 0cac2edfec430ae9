/* test_store: the results store without a GPU — JSON round trip, append and reopen,
 * resume lookups, torn last line, malformed lines, the lock, and a SIGKILL mid-append. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "store/record_json.h"
#include "store/store.h"

static char tmpdir[512];

static char *tpath(const char *name) { return xasprintf("%s/%s", tmpdir, name); }

static void make_record(record *r, int i, const char *problem, const char *thash) {
  record_init(r);
  char cfg[64], tile[16], pad[16];
  snprintf(tile, sizeof tile, "%d", 16 << (i % 3));
  snprintf(pad, sizeof pad, "%d", i);
  snprintf(cfg, sizeof cfg, "TILE=%s,PAD=%s", tile, pad);
  record_set_str(&r->space, "transpose");
  record_set_str(&r->config, cfg);
  record_set_str(&r->problem, problem);
  r->nparams = 2;
  r->pname[0] = xstrdup("TILE"), r->pvalue[0] = xstrdup(tile);
  r->pname[1] = xstrdup("PAD"), r->pvalue[1] = xstrdup(pad);
  record_set_str(&r->message, "");
  record_set_str(&r->template_hash, thash);
  record_set_str(&r->options_hash, "opt0");
  r->t_median = 0.1 + i * 0.001;
  r->samples = 10 + i;
}

/* Every field set, with values that stress the number writer (no short decimal form). */
static void make_full(record *r) {
  record_init(r);
  record_set_str(&r->space, "transpose \"quoted\"");
  record_set_str(&r->config, "TILE=64,PAD=1,VEC=4");
  record_set_str(&r->problem, "M=8192,N=8192");
  /* deliberately not sorted by name: the space's order must survive */
  const char *n[] = {"TILE", "PAD", "VEC"}, *v[] = {"64", "1", "4"};
  r->nparams = 3;
  for (int i = 0; i < 3; i++) r->pname[i] = xstrdup(n[i]), r->pvalue[i] = xstrdup(v[i]);
  r->status = ST_WRONG_RESULT;
  record_set_str(&r->message, "mismatch at [3,7]: got 1.5\nexpected\t2 \\ é");
  r->t_median = 0.134217728123456789;
  r->t_min = 1.0 / 3.0;
  r->t_mean = 2e-7;
  r->t_std = 1.23456789e+300;
  r->samples = 417;
  r->gbps = 4012.345678901234;
  r->copy_share = 0.9731;
  r->gflops = 0;
  r->energy_mj = 12.5;
  r->regs = 32, r->smem_static = 16896, r->smem_dynamic = 0, r->local_bytes = 8;
  r->spill_stores = 4, r->spill_loads = 2, r->block_threads = 256;
  r->occupancy = 0.75;
  record_set_str(&r->limiter, "registers");
  r->compile_ms = 231.7;
  r->measure_ms = 3.25, r->m_load_ms = 0.25, r->m_check_ms = 0.5, r->m_timing_ms = 2.0, r->m_isolated_ms = 0.5;
  r->t_raced = 0.12875;                           /* a raced record: the bound its samples exceeded ... */
  record_set_str(&r->race_ref, RECORD_RACE_BEST); /* ... the best so far x --race-early */
  record_set_str(&r->template_hash, "0123456789abcdef0123456789abcdef");
  record_set_str(&r->options_hash, "fedcba9876543210fedcba9876543210");
  record_set_str(&r->check_hash, "00112233445566778899aabbccddeeff");
  record_set_str(&r->launch_hash, "ffeeddccbbaa99887766554433221100");
  record_set_str(&r->nvrtc_version, "13.0");
  record_set_str(&r->driver_version, "580.65");
  record_set_str(&r->device_name, "NVIDIA H200");
  record_set_str(&r->device_cc, "9.0");
  record_set_str(&r->device_uuid, "GPU-1234");
  record_set_str(&r->arch, "sm_90");
  record_set_str(&r->timestamp, "2026-11-29T14:08:04Z");
  r->sm_clock_mhz = 1980, r->mem_clock_mhz = 3201;
  r->throttle_reasons = 0x10000000004LL;
  r->device_sms = 132;
  r->temperature_c = 41.5;
}

static int same_num(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }
static int same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

static int records_equal(const record *a, const record *b) {
  int ok = same_str(a->space, b->space) && same_str(a->config, b->config) && same_str(a->problem, b->problem) &&
           a->nparams == b->nparams && a->status == b->status && same_str(a->message, b->message) &&
           same_num(a->t_median, b->t_median) && same_num(a->t_min, b->t_min) && same_num(a->t_mean, b->t_mean) &&
           same_num(a->t_std, b->t_std) && a->samples == b->samples && same_num(a->gbps, b->gbps) &&
           same_num(a->copy_share, b->copy_share) && same_num(a->gflops, b->gflops) &&
           same_num(a->energy_mj, b->energy_mj) && a->regs == b->regs && a->smem_static == b->smem_static &&
           a->smem_dynamic == b->smem_dynamic && a->local_bytes == b->local_bytes &&
           a->spill_stores == b->spill_stores && a->spill_loads == b->spill_loads &&
           a->block_threads == b->block_threads && same_num(a->occupancy, b->occupancy) &&
           same_str(a->limiter, b->limiter) && same_num(a->compile_ms, b->compile_ms) &&
           same_num(a->measure_ms, b->measure_ms) && same_num(a->m_load_ms, b->m_load_ms) &&
           same_num(a->m_check_ms, b->m_check_ms) && same_num(a->m_timing_ms, b->m_timing_ms) &&
           same_num(a->m_isolated_ms, b->m_isolated_ms) && same_num(a->t_raced, b->t_raced) &&
           same_str(a->race_ref, b->race_ref) && same_str(a->template_hash, b->template_hash) &&
           same_str(a->options_hash, b->options_hash) && same_str(a->check_hash, b->check_hash) &&
           same_str(a->launch_hash, b->launch_hash) && same_str(a->nvrtc_version, b->nvrtc_version) &&
           same_str(a->driver_version, b->driver_version) && same_str(a->device_name, b->device_name) &&
           same_str(a->device_cc, b->device_cc) && same_str(a->device_uuid, b->device_uuid) &&
           same_str(a->arch, b->arch) && same_str(a->timestamp, b->timestamp) &&
           same_num(a->sm_clock_mhz, b->sm_clock_mhz) && same_num(a->mem_clock_mhz, b->mem_clock_mhz) &&
           a->throttle_reasons == b->throttle_reasons && same_num(a->temperature_c, b->temperature_c) &&
           a->device_sms == b->device_sms;
  for (int i = 0; ok && i < a->nparams; i++)
    ok = same_str(a->pname[i], b->pname[i]) && same_str(a->pvalue[i], b->pvalue[i]);
  return ok;
}

static void test_round_trip(void) {
  record a, b;
  cterr err;
  dbuf j, j2;
  dbuf_init(&j), dbuf_init(&j2);

  make_full(&a);
  record_to_json(&a, &j);
  CHECK(!strchr(j.data, '\n'));
  CHECK_STR_CONTAINS(j.data, "\"t_median\":0.13421772812345678");
  CHECK_STR_CONTAINS(j.data, "\"params\":{\"TILE\":\"64\",\"PAD\":\"1\",\"VEC\":\"4\"}");
  CHECK_STR_CONTAINS(j.data, "\"raced_above\":0.12875,\"race_ref\":\"best\"}");
  CHECK_STR_CONTAINS(j.data, "\"measure_split_ms\":{\"load\":0.25,\"check\":0.5,\"timing\":2,\"isolated\":0.5}");
  CHECK_STR_CONTAINS(j.data,
                     "\"options_hash\":\"fedcba9876543210fedcba9876543210\",\"check_hash\":"
                     "\"00112233445566778899aabbccddeeff\",\"launch_hash\":\"ffeeddccbbaa99887766554433221100\"");
  REQUIRE(record_from_json(j.data, &b, &err) == 0);
  CHECK(records_equal(&a, &b));
  CHECK(!record_raced(&b)); /* raced applies to ok records: this one is a wrong_result */
  record_to_json(&b, &j2);
  CHECK(!strcmp(j.data, j2.data)); /* stable key order: the same bytes again */
  record_free(&a), record_free(&b);

  /* numbers far past long long's range write as %g and read back (tools/fuzz found the cast of
   * 1.1e20 to long long, undefined, in dbuf_json_num) */
  make_full(&a);
  a.t_median = 1.1111111111111111e20, a.gbps = -3e300;
  dbuf_reset(&j);
  record_to_json(&a, &j);
  CHECK_STR_CONTAINS(j.data, "\"t_median\":1.1111111111111111e+20");
  REQUIRE(record_from_json(j.data, &b, &err) == 0);
  CHECK(b.t_median == a.t_median && b.gbps == a.gbps);
  record_free(&a), record_free(&b);

  /* the same with ASCII text only (the fast reader's path, not jansson's) */
  make_full(&a);
  record_set_str(&a.message, "mismatch at [3,7]: got 1.5\nexpected\t2 \\ \"q\" /");
  a.status = ST_OK;
  dbuf_reset(&j);
  record_to_json(&a, &j);
  REQUIRE(record_from_json(j.data, &b, &err) == 0);
  CHECK(records_equal(&a, &b));
  CHECK(record_raced(&b) && record_raced_early(&b));
  record_free(&a), record_free(&b);
  /* raced before race_ref was written: against the k-th best */
  REQUIRE(record_from_json("{\"config\":\"A=1\",\"problem\":\"N=1\",\"status\":\"ok\",\"time_ms\":{\"median\":2,"
                           "\"raced_above\":1.5}}",
                           &b, &err) == 0);
  CHECK(record_raced(&b) && !record_raced_early(&b) && !b.race_ref);
  record_free(&b);

  /* timing only: "unchecked":1, read back; absent (old stores, checked spaces) it is 0 */
  make_full(&a);
  CHECK(!strstr(j.data, "unchecked"));
  a.unchecked = 1;
  dbuf_reset(&j);
  record_to_json(&a, &j);
  CHECK_STR_CONTAINS(j.data, "\"unchecked\":1");
  REQUIRE(record_from_json(j.data, &b, &err) == 0);
  CHECK(b.unchecked == 1);
  record_free(&a), record_free(&b);
  REQUIRE(record_from_json("{\"config\":\"A=1\",\"problem\":\"N=1\",\"status\":\"ok\"}", &b, &err) == 0);
  CHECK(b.unchecked == 0);
  CHECK(!b.check_hash && !b.launch_hash); /* written before the check and launch hashes: none written back */
  dbuf_reset(&j);
  record_to_json(&b, &j);
  CHECK(!strstr(j.data, "check_hash") && !strstr(j.data, "launch_hash"));
  record_free(&b);

  /* written by another tool: keys reordered, spaces, 12.0 for an int, \u escapes, unknown
   * keys, no time_ms object (the top-level t_median then counts) */
  const char *other =
      " { \"status\" : \"ok\", \"extra\": [1, {\"a\": null}], \"problem\": \"N=4\",\n"
      "   \"params\": {\"B\": 2, \"A\": \"x\"}, \"config\": \"B=2,A=x\", \"t_median\": 1.5e-3,\n"
      "   \"resources\": {\"regs\": 12.0, \"limiter\": \"\\u0074hreads\"} } ";
  REQUIRE(record_from_json(other, &b, &err) == 0);
  CHECK(b.t_median == 1.5e-3 && b.regs == 12 && !strcmp(b.limiter, "threads"));
  /* older than racing and the split: fully timed, split unknown */
  CHECK(isnan(b.t_raced) && !record_raced(&b) && !b.race_ref && isnan(b.m_load_ms) && isnan(b.m_timing_ms));
  CHECK(b.nparams == 2 && !strcmp(b.pname[0], "B") && !strcmp(b.pvalue[0], "2") && !strcmp(b.pname[1], "A"));
  record_free(&b);
  /* the same without the \u escape takes the fast reader, which must agree */
  char *plain = xstrdup(other);
  char *u = strstr(plain, "\\u0074");
  memmove(u, u + 5, strlen(u + 5) + 1);
  u[0] = 't';
  REQUIRE(record_from_json(plain, &b, &err) == 0);
  CHECK(b.t_median == 1.5e-3 && b.regs == 12 && !strcmp(b.limiter, "threads"));
  CHECK(b.nparams == 2 && !strcmp(b.pname[0], "B") && !strcmp(b.pvalue[0], "2") && !strcmp(b.pname[1], "A"));
  record_free(&b);
  free(plain);

  /* nothing measured: NANs and -1s become null and come back as NAN and -1 */
  record_init(&a);
  record_set_str(&a.config, "TILE=16");
  record_set_str(&a.problem, "N=1");
  a.status = ST_COMPILE_ERROR;
  a.samples = -1;
  dbuf_reset(&j);
  record_to_json(&a, &j);
  CHECK_STR_CONTAINS(j.data, "\"regs\":null");
  CHECK_STR_CONTAINS(j.data, "\"median\":null");
  CHECK_STR_CONTAINS(j.data, "\"throttle_reasons\":null");
  REQUIRE(record_from_json(j.data, &b, &err) == 0);
  CHECK(records_equal(&a, &b));
  CHECK(isnan(b.t_median) && b.regs == -1 && b.throttle_reasons == -1 && b.message == NULL);
  record_free(&a), record_free(&b);

  /* what is not a record says why */
  CHECK(record_from_json("{\"config\":\"A=1\",\"problem\":\"N=1\",\"status\":\"weird\"}", &b, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "unknown status 'weird'");
  CHECK(record_from_json("{\"config\":\"A=1\",\"problem\":\"N=1\",\"status\":\"ok\",\"gbps\":\"fast\"}", &b, &err) ==
        -1);
  CHECK_STR_CONTAINS(err.msg, "gbps");
  CHECK(record_from_json("[1,2]", &b, &err) == -1);
  CHECK(record_from_json("{\"config\":", &b, &err) == -1);
  dbuf_free(&j), dbuf_free(&j2);
}

static void test_path_for(void) {
  char *p = store_path_for("results", "NVIDIA H200 (MIG 1g)", "transpose");
  CHECK(!strcmp(p, "results/NVIDIA_H200__MIG_1g_/transpose.jsonl"));
  free(p);
  /* a device (or space) named "..", "." or "" stays a folder of its own inside results/ */
  const char *names[][2] = {{"..", "results/_./transpose.jsonl"},
                            {".", "results/_/transpose.jsonl"},
                            {".hidden", "results/_hidden/transpose.jsonl"},
                            {"", "results/unknown-device/transpose.jsonl"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    p = store_path_for("results", names[i][0], "transpose");
    CHECK_MSG(!strcmp(p, names[i][1]), "device '%s': %s", names[i][0], p);
    free(p);
  }
  p = store_path_for("results", "NVIDIA H200", "..");
  CHECK_MSG(!strcmp(p, "results/NVIDIA_H200/_..jsonl"), "space '..': %s", p);
  free(p);
}

static void test_append_reopen_find(void) {
  char *path = tpath("a/b/store.jsonl");
  store *s;
  cterr err;
  dbuf w;
  dbuf_init(&w);
  REQUIRE(store_open(path, &s, &w, &err) == 0);
  CHECK(store_count(s) == 0 && w.len == 0);
  enum { N = 50 };
  for (int i = 0; i < N; i++) {
    record r;
    make_record(&r, i, "N=1024", "h1");
    REQUIRE(store_append(s, &r, &err) == 0);
    record_free(&r);
  }
  /* the same config measured again, newer, under a different template */
  record r;
  make_record(&r, 7, "N=1024", "h2");
  r.t_median = 99;
  REQUIRE(store_append(s, &r, &err) == 0);
  record_free(&r);
  CHECK(store_count(s) == N + 1);
  store_close(s);

  REQUIRE(store_open(path, &s, &w, &err) == 0);
  CHECK_MSG(w.len == 0, "%s", w.data);
  REQUIRE(store_count(s) == N + 1);
  for (int i = 0; i < N; i++) {
    record e;
    make_record(&e, i, "N=1024", "h1");
    const record *f = store_find(s, e.config, "N=1024", "h1", "opt0", NULL);
    CHECK_MSG(f && records_equal(f, &e), "record %d", i);
    CHECK(records_equal(store_get(s, (size_t)i), &e));
    record_free(&e);
  }
  const record *f = store_find(s, "TILE=32,PAD=7", "N=1024", NULL, NULL, NULL);
  CHECK(f && f->t_median == 99); /* newest wins when hashes are not asked for */
  f = store_find(s, "TILE=32,PAD=7", "N=1024", "h1", NULL, NULL);
  CHECK(f && f->t_median != 99);                                       /* an older record whose hash matches */
  CHECK(store_find(s, "TILE=32,PAD=7", "N=1024", "h3", NULL, NULL) == NULL); /* hash mismatch: not found */
  CHECK(store_find(s, "TILE=32,PAD=7", "N=1024", "h1", "other", NULL) == NULL);
  CHECK(store_find(s, "TILE=32,PAD=7", "N=2048", NULL, NULL, NULL) == NULL); /* other problem */
  CHECK(store_find(s, "TILE=64,PAD=99", "N=1024", NULL, NULL, NULL) == NULL);
  CHECK(!strcmp(store_file(s), path));
  /* a compile worker killed from outside (worker_lost) never answers: resume measures it
   * again; a compile_timeout or compile_error does (they are the configuration's) */
  make_record(&r, 3, "N=4096", "h1");
  r.status = ST_WORKER_LOST;
  REQUIRE(store_append(s, &r, &err) == 0);
  CHECK(store_find(s, r.config, "N=4096", "h1", NULL, NULL) == NULL);
  r.status = ST_COMPILE_TIMEOUT;
  REQUIRE(store_append(s, &r, &err) == 0);
  f = store_find(s, r.config, "N=4096", "h1", NULL, NULL);
  CHECK(f && f->status == ST_COMPILE_TIMEOUT);
  r.status = ST_WORKER_LOST; /* a newer lost record: the older answer still stands */
  REQUIRE(store_append(s, &r, &err) == 0);
  f = store_find(s, r.config, "N=4096", "h1", NULL, NULL);
  CHECK(f && f->status == ST_COMPILE_TIMEOUT);
  record_free(&r);
  CHECK(!strcmp(rec_status_name(ST_WORKER_LOST), "worker_lost"));
  rec_status st;
  CHECK(rec_status_parse("compile_timeout", &st) == 0 && st == ST_COMPILE_TIMEOUT);
  store_close(s);

  /* read-only load sees the same and cannot append */
  REQUIRE(store_load(path, &s, &w, &err) == 0);
  CHECK(store_count(s) == N + 4);
  make_record(&r, 1, "N=1", "h");
  CHECK(store_append(s, &r, &err) == -1);
  record_free(&r);
  store_close(s);
  dbuf_free(&w);
  free(path);
}

static void append_raw(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  close(fd);
}

static char *slurp(const char *path) {
  dbuf b;
  cterr err;
  dbuf_init(&b);
  if (file_read(path, &b, &err)) return NULL;
  return dbuf_steal(&b);
}

/* every line ends with a newline and parses as a record */
static int valid_file(const char *path, size_t *count) {
  char *t = slurp(path);
  if (!t) return 0;
  size_t n = 0;
  int ok = !*t || t[strlen(t) - 1] == '\n';
  for (char *line = strtok(t, "\n"); ok && line; line = strtok(NULL, "\n")) {
    record r;
    cterr err;
    ok = record_from_json(line, &r, &err) == 0;
    record_free(&r);
    n++;
  }
  free(t);
  *count = n;
  return ok;
}

/* The check hash: a record answers only the check it was measured under; a record without one
 * (an older store) answers any; a newer record of another check hides no older one of this. */
static void test_check_hash(void) {
  char *path = tpath("check/store.jsonl");
  store *s;
  cterr err;
  REQUIRE(store_open(path, &s, NULL, &err) == 0);
  record r;
  make_record(&r, 1, "N=1024", "h1"); /* an older cutune's record: no check hash */
  REQUIRE(store_append(s, &r, &err) == 0);
  record_free(&r);
  make_record(&r, 2, "N=1024", "h1");
  record_set_str(&r.check_hash, "tight");
  r.status = ST_WRONG_RESULT;
  REQUIRE(store_append(s, &r, &err) == 0);
  const char *old = "TILE=32,PAD=1", *cfg = "TILE=64,PAD=2";
  CHECK(store_find(s, old, "N=1024", "h1", "opt0", "tight") != NULL);
  CHECK(store_find(s, old, "N=1024", "h1", "opt0", "loose") != NULL);
  const record *f = store_find(s, cfg, "N=1024", "h1", "opt0", "tight");
  CHECK(f && f->status == ST_WRONG_RESULT);
  CHECK(store_find(s, cfg, "N=1024", "h1", "opt0", "loose") == NULL); /* another check: measure again */
  CHECK(store_find(s, cfg, "N=1024", "h1", "opt0", NULL) == f);       /* not asked: the newest */
  /* measured again under the loose check: both records kept, each answering its own check */
  record_set_str(&r.check_hash, "loose");
  r.status = ST_OK;
  REQUIRE(store_append(s, &r, &err) == 0);
  r.status = ST_COMPILE_TIMEOUT;
  REQUIRE(store_append(s, &r, &err) == 0);
  record_free(&r);
  store_close(s);
  REQUIRE(store_open(path, &s, NULL, &err) == 0);
  CHECK(store_count(s) == 4);
  f = store_find(s, cfg, "N=1024", "h1", "opt0", "loose");
  CHECK(f && f->status == ST_COMPILE_TIMEOUT && !strcmp(f->check_hash, "loose"));
  f = store_find(s, cfg, "N=1024", "h1", "opt0", "tight");
  CHECK(f && f->status == ST_WRONG_RESULT && !strcmp(f->check_hash, "tight"));
  CHECK(store_find(s, cfg, "N=1024", "h1", "opt0", "other") == NULL);
  CHECK(store_count_status(s, cfg, "N=1024", "h1", "opt0", "loose", ST_COMPILE_TIMEOUT) == 1);
  CHECK(store_count_status(s, cfg, "N=1024", "h1", "opt0", "tight", ST_COMPILE_TIMEOUT) == 0);
  CHECK(store_count_status(s, cfg, "N=1024", "h1", "opt0", NULL, ST_COMPILE_TIMEOUT) == 1);
  CHECK(store_count_status(s, old, "N=1024", "h1", "opt0", "other", ST_OK) == 1);
  store_close(s);
  free(path);
}

/* The launch hash as store_find_want matches it: asked for (once) only where a candidate record
 * carries one; a record launched otherwise is passed over and an older one of this launch
 * answers; one without (an older store) answers whatever the launch, and so does every record
 * when the run cannot say how it launches (NULL) but those with a hash. */
static int asked;
static const char *launch_of(void *ctx) {
  asked++;
  return ctx;
}

static void test_launch_hash(void) {
  char *path = tpath("launch/store.jsonl");
  store *s;
  cterr err;
  REQUIRE(store_open(path, &s, NULL, &err) == 0);
  record r;
  make_record(&r, 1, "N=1024", "h1"); /* TILE=32,PAD=1: an older cutune's record, no launch hash */
  REQUIRE(store_append(s, &r, &err) == 0);
  record_free(&r);
  make_record(&r, 2, "N=1024", "h1"); /* TILE=64,PAD=2: launched as "L1", then as "L2" */
  record_set_str(&r.launch_hash, "L1");
  REQUIRE(store_append(s, &r, &err) == 0);
  record_set_str(&r.launch_hash, "L2");
  r.status = ST_WRONG_RESULT;
  REQUIRE(store_append(s, &r, &err) == 0);
  record_free(&r);
  const char *old = "TILE=32,PAD=1", *cfg = "TILE=64,PAD=2";
  store_want w = {"h1", "opt0", NULL, 0, launch_of, "L1"};
  asked = 0;
  CHECK(store_find_want(s, old, "N=1024", &w) != NULL); /* no launch hash: answers, nothing evaluated */
  CHECK(asked == 0);
  CHECK(store_find_want(s, "TILE=16,PAD=9", "N=1024", &w) == NULL && asked == 0); /* nothing stored */
  const record *f = store_find_want(s, cfg, "N=1024", &w);
  CHECK(f && f->status == ST_OK && !strcmp(f->launch_hash, "L1")); /* the newer one launched otherwise */
  CHECK(asked == 1);                                               /* asked once for both candidates */
  w.launch_ctx = "L2";
  f = store_find_want(s, cfg, "N=1024", &w);
  CHECK(f && f->status == ST_WRONG_RESULT);
  w.launch_ctx = "L3";
  CHECK(store_find_want(s, cfg, "N=1024", &w) == NULL); /* a third launch: measure again */
  w.launch_ctx = NULL;                                  /* the space's code fails for it now */
  CHECK(store_find_want(s, cfg, "N=1024", &w) == NULL && store_find_want(s, old, "N=1024", &w) != NULL);
  CHECK(store_find(s, cfg, "N=1024", "h1", "opt0", NULL) != NULL); /* not asked: the newest */
  store_close(s);
  free(path);
}

/* space_error (the space's own code failed): never an answer, so an older record stands or the
 * configuration is evaluated again; with space_errors it is taken, as what became of it last. */
static void test_space_error(void) {
  char *path = tpath("space_error/store.jsonl");
  store *s;
  cterr err;
  REQUIRE(store_open(path, &s, NULL, &err) == 0);
  record r;
  make_record(&r, 2, "N=1024", "h1"); /* TILE=64,PAD=2: measured, then failed in the space's code */
  r.status = ST_WRONG_RESULT;
  REQUIRE(store_append(s, &r, &err) == 0);
  r.status = ST_SPACE_ERROR;
  REQUIRE(store_append(s, &r, &err) == 0);
  record_free(&r);
  make_record(&r, 4, "N=1024", "h1"); /* TILE=32,PAD=4: only ever failed so */
  r.status = ST_SPACE_ERROR;
  REQUIRE(store_append(s, &r, &err) == 0);
  record_free(&r);
  store_close(s);
  REQUIRE(store_open(path, &s, NULL, &err) == 0); /* the status survives the round trip */
  const char *cfg = "TILE=64,PAD=2", *only = "TILE=32,PAD=4";
  const record *f = store_find(s, cfg, "N=1024", "h1", "opt0", NULL);
  CHECK(f && f->status == ST_WRONG_RESULT);
  CHECK(store_find(s, only, "N=1024", "h1", "opt0", NULL) == NULL);
  store_want w = {"h1", "opt0", NULL, 1, NULL, NULL};
  f = store_find_want(s, cfg, "N=1024", &w);
  CHECK(f && f->status == ST_SPACE_ERROR);
  f = store_find_want(s, only, "N=1024", &w);
  CHECK(f && f->status == ST_SPACE_ERROR);
  CHECK(!strcmp(rec_status_name(ST_SPACE_ERROR), "space_error"));
  rec_status st;
  CHECK(rec_status_parse("space_error", &st) == 0 && st == ST_SPACE_ERROR);
  store_close(s);
  free(path);
}

static void test_torn_last_line(void) {
  char *path = tpath("torn.jsonl"), *torn = tpath("torn.jsonl.torn");
  store *s;
  cterr err;
  dbuf w, j;
  dbuf_init(&w), dbuf_init(&j);
  REQUIRE(store_open(path, &s, NULL, &err) == 0);
  for (int i = 0; i < 5; i++) {
    record r;
    make_record(&r, i, "N=64", "h");
    REQUIRE(store_append(s, &r, &err) == 0);
    if (i == 4) record_to_json(&r, &j);
    record_free(&r);
  }
  store_close(s);
  /* a crash in the middle of writing a sixth record */
  char *half = xstrdup(j.data);
  half[j.len / 2] = 0;
  append_raw(path, half);

  /* read-only load: complete records all there, the file untouched */
  REQUIRE(store_load(path, &s, &w, &err) == 0);
  CHECK(store_count(s) == 5);
  CHECK_STR_CONTAINS(w.data, ":6: last line is cut off");
  store_close(s);
  CHECK(!file_exists(torn));

  dbuf_reset(&w);
  REQUIRE(store_open(path, &s, &w, &err) == 0);
  CHECK(store_count(s) == 5);
  CHECK_STR_CONTAINS(w.data, "torn.jsonl:6: last line was cut off");
  char *t = slurp(torn);
  CHECK(t && strncmp(t, half, strlen(half)) == 0);
  free(t);
  record r;
  make_record(&r, 5, "N=64", "h");
  REQUIRE(store_append(s, &r, &err) == 0);
  record_free(&r);
  store_close(s);
  size_t n = 0;
  CHECK(valid_file(path, &n) && n == 6);

  /* a complete record whose newline was lost is kept, not moved aside */
  t = slurp(path);
  REQUIRE(t);
  int fd = open(path, O_WRONLY | O_TRUNC);
  REQUIRE(fd >= 0 && write(fd, t, strlen(t) - 1) == (ssize_t)strlen(t) - 1);
  close(fd);
  free(t);
  dbuf_reset(&w);
  REQUIRE(store_open(path, &s, &w, &err) == 0);
  CHECK(store_count(s) == 6);
  CHECK_STR_CONTAINS(w.data, "lacked its newline");
  store_close(s);
  CHECK(valid_file(path, &n) && n == 6);

  free(half), free(path), free(torn);
  dbuf_free(&w), dbuf_free(&j);
}

static void test_malformed_middle(void) {
  char *path = tpath("bad.jsonl");
  store *s;
  cterr err;
  dbuf w;
  dbuf_init(&w);
  REQUIRE(store_open(path, &s, NULL, &err) == 0);
  record r;
  make_record(&r, 0, "N=8", "h");
  REQUIRE(store_append(s, &r, &err) == 0);
  record_free(&r);
  store_close(s);
  append_raw(path, "this is not json\n\n{\"config\":\"X=1\"}\n");
  REQUIRE(store_open(path, &s, NULL, &err) == 0);
  make_record(&r, 1, "N=8", "h");
  REQUIRE(store_append(s, &r, &err) == 0);
  record_free(&r);
  store_close(s);

  REQUIRE(store_open(path, &s, &w, &err) == 0);
  CHECK(store_count(s) == 2);
  CHECK_STR_CONTAINS(w.data, "bad.jsonl:2: not a cutune record (");
  CHECK_STR_CONTAINS(w.data, "bad.jsonl:4: not a cutune record ('problem' missing");
  CHECK(!strstr(w.data, ":3:")); /* a blank line is not worth a warning */
  store_close(s);
  char *t = slurp(path);
  CHECK_STR_CONTAINS(t, "this is not json\n"); /* kept in place */
  free(t), free(path);
  dbuf_free(&w);
}

static void test_lock(void) {
  char *path = tpath("lock.jsonl");
  store *s, *s2;
  cterr err;
  REQUIRE(store_open(path, &s, NULL, &err) == 0);
  /* another process */
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    store *c;
    cterr e;
    int rc = store_open(path, &c, NULL, &e);
    if (rc == 0) store_close(c);
    if (write(fds[1], e.msg, rc ? strlen(e.msg) + 1 : 1) < 0) _exit(3);
    _exit(rc ? 1 : 0);
  }
  close(fds[1]);
  char buf[CTERR_MAX] = "", *msg = buf;
  ssize_t n = read(fds[0], buf, sizeof buf - 1);
  buf[n > 0 ? n : 0] = 0;
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  char expect[600];
  snprintf(expect, sizeof expect, "%s is in use by another cutune run (pid %ld)", path, (long)getpid());
  CHECK_STR_CONTAINS(msg, expect);
  /* and a second open in this very process is refused the same way */
  CHECK(store_open(path, &s2, NULL, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "is in use by another cutune run");
  store_close(s);

  pid = fork();
  if (pid == 0) {
    store *c;
    cterr e;
    if (store_open(path, &c, NULL, &e)) _exit(1);
    store_close(c);
    _exit(0);
  }
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  free(path);
}

/* A child appends as fast as it can and reports each record after store_append returned;
 * we SIGKILL it at some point. Every reported record must be there, exactly once. */
static void test_sigkill(void) {
  char *path = tpath("kill.jsonl");
  for (int round = 0; round < 3; round++) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      store *c;
      cterr e;
      if (store_open(path, &c, NULL, &e)) _exit(1);
      for (int i = 0;; i++) {
        record r;
        char problem[32];
        snprintf(problem, sizeof problem, "R=%d,I=%d", round, i);
        make_record(&r, i, problem, "h");
        if (store_append(c, &r, &e)) _exit(2);
        record_free(&r);
        if (write(fds[1], &i, sizeof i) != sizeof i) _exit(3);
      }
    }
    close(fds[1]);
    int last = -1, v;
    /* let it write a while: a different number of records each round */
    for (int got = 0; got < 40 + 70 * round && read(fds[0], &v, sizeof v) == sizeof v; got++) last = v;
    kill(pid, SIGKILL);
    while (read(fds[0], &v, sizeof v) == sizeof v) last = v; /* reports already in the pipe */
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    CHECK(WIFSIGNALED(status));

    store *s;
    cterr err;
    dbuf w;
    dbuf_init(&w);
    REQUIRE(store_open(path, &s, &w, &err) == 0);
    int lost = 0, dup = 0;
    for (int i = 0; i <= last; i++) {
      char problem[32];
      snprintf(problem, sizeof problem, "R=%d,I=%d", round, i);
      size_t hits = 0;
      for (size_t k = 0; k < store_count(s); k++)
        if (!strcmp(store_get(s, k)->problem, problem)) hits++;
      lost += hits == 0;
      dup += hits > 1;
    }
    CHECK_MSG(lost == 0 && dup == 0, "round %d: %d lost, %d duplicated of %d", round, lost, dup, last + 1);
    /* at most the one record in flight beyond those reported */
    size_t mine = 0;
    for (size_t k = 0; k < store_count(s); k++)
      if (!strncmp(store_get(s, k)->problem, "R=", 2) && store_get(s, k)->problem[2] == '0' + round) mine++;
    CHECK(mine == (size_t)last + 1 || mine == (size_t)last + 2);
    store_close(s);
    dbuf_free(&w);
    size_t n;
    CHECK(valid_file(path, &n));
  }
  free(path);
}

/* Resume must be cheap on a big store: 100k records well under a second. */
static void test_load_speed(void) {
  char *path = tpath("big.jsonl");
  enum { N = 100000 };
  dbuf all, j;
  dbuf_init(&all), dbuf_init(&j);
  record r;
  make_full(&r);
  record_set_str(&r.message, ""); /* the usual case: a record that passed */
  r.status = ST_OK;
  for (int i = 0; i < N; i++) {
    char cfg[64];
    snprintf(cfg, sizeof cfg, "TILE=%d,PAD=%d,VEC=%d", i % 97, i / 97, i % 4);
    record_set_str(&r.config, cfg);
    dbuf_reset(&j);
    record_to_json(&r, &j);
    dbuf_append(&all, j.data, j.len);
    dbuf_puts(&all, "\n");
  }
  record_free(&r);
  cterr err;
  REQUIRE(file_write_atomic(path, all.data, all.len, &err) == 0);
  store *s;
  double t0 = now_seconds();
  REQUIRE(store_load(path, &s, NULL, &err) == 0);
  double t = now_seconds() - t0;
  CHECK(store_count(s) == N);
  CHECK(store_find(s, "TILE=5,PAD=3,VEC=1", "M=8192,N=8192", NULL, NULL, NULL) == NULL);
  CHECK(store_find(s, "TILE=3,PAD=3,VEC=2", "M=8192,N=8192", NULL, NULL, NULL) != NULL); /* i = 294 */
  fprintf(stderr, "loaded %d records (%.1f MB) in %.3f s\n", N, all.len / 1e6, t);
  /* the time is printed, not asserted: speed belongs in benchmarks, not in a test */
  store_close(s);
  unlink(path);
  dbuf_free(&all), dbuf_free(&j);
  free(path);
}

int main(void) {
  const char *base = getenv("CUTUNE_TMP");
  if (!base || !*base) base = "/tmp";
  cterr err;
  mkdir_p(base, &err);
  snprintf(tmpdir, sizeof tmpdir, "%s/test_store.XXXXXX", base);
  REQUIRE(mkdtemp(tmpdir));
  test_round_trip();
  test_path_for();
  test_append_reopen_find();
  test_check_hash();
  test_launch_hash();
  test_space_error();
  test_torn_last_line();
  test_malformed_middle();
  test_lock();
  test_sigkill();
  test_load_speed();
  return check_report();
}
