/* test_explain: the explain unit without a GPU — ncu CSV recorded on an H200 (naive, unpadded
 * and padded tile 32, and the tuned winner of the transpose space at 8192^2) parsed into the
 * metric set; the one-line readings tell the seed's story from those counters; compute-sanitizer
 * output recorded on planted faulty kernels gives the right verdicts; the sidecar round-trips
 * and the shipping rule refuses a flagged configuration. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "explain/explain_store.h"
#include "explain/ncu.h"
#include "explain/sanitize.h"
#include "store/record_json.h"
#include "store/store.h"

static void load(const char *path, dbuf *b) {
  cterr err;
  dbuf_init(b);
  if (file_read(path, b, &err) != 0) {
    fprintf(stderr, "%s\n", err.msg);
    exit(1);
  }
}

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b) + 1e-12; }

static void parse_fixture(const char *name, ncu_metrics *m, dbuf *reading) {
  char path[256];
  snprintf(path, sizeof path, "tests/fixtures/ncu/ncu_%s.csv", name);
  dbuf b;
  cterr err;
  load(path, &b);
  int rows = ncu_parse_csv(b.data, b.len, 0, m, &err);
  CHECK_MSG(rows == 1, "%s: %d rows: %s", name, rows, err.msg);
  dbuf_init(reading);
  ncu_reading(m, reading);
  printf("%-7s %s\n", name, reading->data);
  dbuf_free(&b);
}

static void test_csv(void) {
  ncu_metrics w, n, p0, p1;
  dbuf rw, rn, r0, r1;
  parse_fixture("winner", &w, &rw);
  parse_fixture("naive", &n, &rn);
  parse_fixture("t32p0", &p0, &r0);
  parse_fixture("t32p1", &p1, &r1);
  /* values with thousands separators and units */
  CHECK(near(w.v[NM_DURATION_NS], 127776));
  CHECK(near(w.v[NM_DRAM_PCT], 83.30));
  CHECK(near(w.v[NM_DRAM_READ], 268460288));
  CHECK(near(w.v[NM_REGS], 32));
  CHECK(near(w.v[NM_LIM_REGS], 4));
  CHECK(near(w.v[NM_GRID_SIZE], 16384));
  CHECK(!strcmp(w.kernel, "transpose"));
  CHECK(w.nstalls >= 15);
  for (int i = 0; i < NM_COUNT; i++)
    CHECK_MSG(isfinite(w.v[i]) || ncu_metric_optional((ncu_metric)i), "metric %s missing",
              ncu_metric_name((ncu_metric)i));
  /* the seed's story from counters */
  CHECK(near(ncu_sectors_per_request(&n, 1), 32.0)); /* naive: each lane its own sector on stores */
  CHECK(near(ncu_sectors_per_request(&n, 0), 4.0));
  CHECK(strstr(rn.data, "uncoalesced stores") != NULL);
  CHECK(ncu_shared_ways(&p0, 0) > 30); /* unpadded tile: 32-way conflicts reading the column */
  CHECK(strstr(r0.data, "32-way bank conflicts on shared loads") != NULL);
  CHECK(ncu_shared_ways(&p1, 0) < 1.2);
  CHECK(strstr(r1.data, "no bank conflicts") != NULL);
  CHECK(strstr(rw.data, "memory-bound at 83 % of DRAM peak") != NULL);
  CHECK(strstr(rw.data, "no bank conflicts") != NULL);
  CHECK(strstr(rw.data, "coalesced (4.0 ld / 4.0 st") != NULL);
  int top[2];
  CHECK(ncu_top_stalls(&w, top, 2) == 2 && !strcmp(w.stall[top[0]].reason, "long_scoreboard"));
  CHECK(ncu_top_stalls(&n, top, 1) == 1 && !strcmp(n.stall[top[0]].reason, "drain"));
  dbuf_free(&rw), dbuf_free(&rn), dbuf_free(&r0), dbuf_free(&r1);

  /* robustness: units scaled, n/a, noise lines, short rows, no header */
  const char *t =
      "==PROF== Connected to process 1\nsome program output, with commas\n"
      "\"ID\",\"Kernel "
      "Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
      "\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\"\n"
      "\"\",\"\",\"usecond\",\"Mbyte\",\"%\",\"Ksector\"\n"
      "\"0\",\"k\",\"128.10\",\"268.46\",\"n/a\",\"8,388.61\"\n"
      "\"1\",\"k\",\"1,000.5\",\"1\",\"5\",\"1\"\n";
  ncu_metrics m;
  cterr err;
  CHECK(ncu_parse_csv(t, strlen(t), 0, &m, &err) == 2);
  CHECK(near(m.v[NM_DURATION_NS], 128100));
  CHECK(near(m.v[NM_DRAM_READ], 268460000));
  CHECK(isnan(m.v[NM_SM_PCT]));
  CHECK(near(m.v[NM_GLD_SECTORS], 8388610));
  CHECK(ncu_parse_csv(t, strlen(t), 1, &m, &err) == 2 && near(m.v[NM_DURATION_NS], 1000500));
  CHECK(ncu_parse_csv(t, strlen(t), 2, &m, &err) == -1 && strstr(err.msg, "2 kernel rows"));
  const char *shortrow = "\"ID\",\"a\",\"b\"\n\"0\",\"x\"\n";
  CHECK(ncu_parse_csv(shortrow, strlen(shortrow), 0, &m, &err) == -1 && strstr(err.msg, "line 2"));
  const char *none =
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters\n";
  CHECK(ncu_parse_csv(none, strlen(none), 0, &m, &err) == -1 && strstr(err.msg, "no ncu CSV header"));
  CHECK(ncu_diagnose(none) && strstr(ncu_diagnose(none), "ERR_NVGPUCTRPERM"));
  CHECK(ncu_diagnose("==ERROR== LibraryNotLoaded") != NULL);
  CHECK(ncu_diagnose("all fine") == NULL);
  char *arg = ncu_metrics_arg();
  CHECK(strstr(arg, "gpu__time_duration.sum,") && strstr(arg, "regex:smsp__average_warps_issue_stalled_"));
  /* the tensor pipes by a regex (a GPU without GMMA must not fail the profile), never by name */
  CHECK(strstr(arg, "regex:sm__pipe_tensor_op_[hg]mma_cycles_active") && !strstr(arg, ",sm__pipe_tensor_op_"));
  CHECK(strstr(arg, "regex:smsp__sass_inst_executed_op_ldsm") && !strstr(arg, ",smsp__sass_inst_executed_op_ldsm"));
  free(arg);
  /* a wgmma kernel's counters: the reading names the tensor pipe */
  const char *tc =
      "\"ID\",\"Kernel Name\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\","
      "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
      "\"sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active\","
      "\"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active\"\n"
      "\"\",\"\",\"%\",\"%\",\"%\",\"%\"\n\"0\",\"hgemm\",\"21.5\",\"81.2\",\"78.4\",\"0\"\n";
  CHECK(ncu_parse_csv(tc, strlen(tc), 0, &m, &err) == 1);
  CHECK(near(m.v[NM_TENSOR_GMMA], 78.4) && near(m.v[NM_TENSOR_HMMA], 0));
  dbuf r;
  dbuf_init(&r);
  ncu_reading(&m, &r);
  CHECK_MSG(strstr(r.data, "compute-bound at 81 % of SM peak") && strstr(r.data, "tensor pipe (wgmma) 78 % of peak"),
            "%s", r.data);
  dbuf_free(&r);
  /* an mma.sync kernel where the GMMA counter reads 0, and an ncu without the GMMA counter (whose
   * HMMA counter counts wgmma too: it cannot say which path), and no LSU shared instructions */
  m.v[NM_TENSOR_GMMA] = 0, m.v[NM_TENSOR_HMMA] = 64.2;
  dbuf_init(&r);
  ncu_reading(&m, &r);
  CHECK_MSG(strstr(r.data, "tensor pipe (mma.sync) 64 % of peak"), "%s", r.data);
  dbuf_free(&r);
  m.v[NM_TENSOR_GMMA] = NAN, m.v[NM_SHINST_LD] = 0, m.v[NM_SHINST_ST] = 0;
  dbuf_init(&r);
  ncu_reading(&m, &r);
  CHECK_MSG(strstr(r.data, "tensor pipe (HMMA counter) 64 % of peak") && !strstr(r.data, "mma.sync") &&
                strstr(r.data, "no shared-memory instructions"),
            "%s", r.data);
  dbuf_free(&r);
  CHECK(ncu_metric_optional(NM_TENSOR_GMMA) && !ncu_metric_optional(NM_DRAM_PCT));
}

static void verdict(const char *file, san_tool t, int rc, san_status want, long errors, const char *finding) {
  char path[256];
  snprintf(path, sizeof path, "tests/fixtures/sanitizer/%s", file);
  dbuf b;
  load(path, &b);
  san_verdict v;
  san_parse(t, b.data, rc, &v);
  CHECK_MSG(v.status == want, "%s: %s", file, san_status_name(v.status));
  CHECK_MSG(v.errors == errors, "%s: %ld errors", file, v.errors);
  if (finding) CHECK_MSG(strstr(v.finding, finding) != NULL, "%s: finding '%s'", file, v.finding);
  dbuf_free(&b);
}

static void test_sanitizer(void) {
  verdict("memcheck_oob.rc99.txt", SAN_MEMCHECK, 99, SAN_FLAGGED, 2,
          "Invalid __global__ write of size 4 bytes at planted_oob");
  verdict("memcheck_clean.rc0.txt", SAN_MEMCHECK, 0, SAN_CLEAN, 0, NULL);
  verdict("racecheck_race.rc99.txt", SAN_RACECHECK, 99, SAN_FLAGGED, 1, "Race reported between Write access");
  verdict("racecheck_clean.rc0.txt", SAN_RACECHECK, 0, SAN_CLEAN, 0, NULL);
  verdict("racecheck_t32p0_ragged.rc0.txt", SAN_RACECHECK, 0, SAN_CLEAN, 0, NULL);
  verdict("initcheck_uninit.rc99.txt", SAN_INITCHECK, 99, SAN_FLAGGED, 65536, "Uninitialized __global__ memory read");
  verdict("initcheck_clean.rc0.txt", SAN_INITCHECK, 0, SAN_CLEAN, 0, NULL);
  verdict("memcheck_winner_ragged.rc0.txt", SAN_MEMCHECK, 0, SAN_CLEAN, 0, NULL);
  san_verdict v;
  san_parse(SAN_MEMCHECK, "compute-sanitizer: command not found", 127, &v);
  CHECK(v.status == SAN_ERROR && strstr(v.finding, "no memcheck summary"));
  const char *o[16];
  int n = san_options(SAN_RACECHECK, o, 16);
  CHECK(n == 10 && !strcmp(o[1], "racecheck") && !strcmp(o[5], "all"));
}

static void test_sidecar(void) {
  const char *tmp = getenv("CUTUNE_TMP") ? getenv("CUTUNE_TMP") : "/tmp";
  char *dir = xasprintf("%s/test_explain", tmp), *spath = xasprintf("%s/space.jsonl", dir);
  cterr err;
  CHECK(mkdir_p(dir, &err) == 0);
  char *side = explain_sidecar_path(spath);
  CHECK(strstr(side, "space.explain.jsonl") != NULL);
  remove(side);
  CHECK(explain_verdict_ok(spath, "A=1", NULL, NULL, NULL, 0) == 1); /* no sidecar: nothing flagged */

  explain_entry e;
  memset(&e, 0, sizeof e);
  ncu_metrics_init(&e.m);
  e.kind = EXPLAIN_NCU;
  e.config = "A=1", e.problem = "N=8", e.time = "2026-12-01T12:00:00Z", e.reading = "memory-bound";
  e.m.v[NM_DURATION_NS] = 127776;
  e.m.nstalls = 1;
  snprintf(e.m.stall[0].reason, sizeof e.m.stall[0].reason, "long_scoreboard");
  e.m.stall[0].per_issue = 18.21;
  e.cutune_median_ms = 0.1323, e.cutune_isolated_ms = NAN;
  CHECK(explain_append(spath, &e, &err) == 0);
  explain_entry s;
  memset(&s, 0, sizeof s);
  s.kind = EXPLAIN_SANITIZE, s.config = "A=2", s.problem = "N=8";
  s.v.tool = SAN_RACECHECK, s.v.status = SAN_FLAGGED, s.v.errors = 1;
  snprintf(s.v.finding, sizeof s.v.finding, "Race reported between Write access at k+0xf0");
  CHECK(explain_append(spath, &s, &err) == 0);
  s.v.tool = SAN_MEMCHECK, s.v.status = SAN_CLEAN, s.v.errors = 0, s.v.finding[0] = 0;
  CHECK(explain_append(spath, &s, &err) == 0);
  s.config = "A=1";
  CHECK(explain_append(spath, &s, &err) == 0);
  FILE *f = fopen(side, "a");
  fputs("{not json\n", f);
  fclose(f);

  explain_set *set;
  size_t skipped = 0;
  REQUIRE(explain_load(spath, &set, &skipped, &err) == 0);
  CHECK(explain_count(set) == 4 && skipped == 1);
  const explain_entry *g = explain_find_ncu(set, "A=1", "N=8");
  CHECK(g && near(g->m.v[NM_DURATION_NS], 127776) && g->m.nstalls == 1 && isnan(g->cutune_isolated_ms));
  CHECK(g && near(g->cutune_median_ms, 0.1323) && !strcmp(g->reading, "memory-bound"));
  char why[600];
  CHECK(explain_verdict(set, "A=2", NULL, NULL, why, sizeof why) == EXPLAIN_FLAGGED && strstr(why, "racecheck on N=8"));
  CHECK(explain_verdict(set, "A=1", NULL, NULL, why, sizeof why) == EXPLAIN_CLEAN);
  CHECK(explain_verdict(set, "A=3", NULL, NULL, why, sizeof why) == EXPLAIN_UNCHECKED);
  explain_free(set);
  CHECK(explain_verdict_ok(spath, "A=2", "N=8", NULL, why, sizeof why) == 0);
  CHECK(explain_verdict_ok(spath, "A=1", "N=8", NULL, why, sizeof why) == 1);
  /* a newer clean racecheck line supersedes the flagged one */
  s.config = "A=2", s.v.tool = SAN_RACECHECK;
  CHECK(explain_append(spath, &s, &err) == 0);
  CHECK(explain_verdict_ok(spath, "A=2", NULL, NULL, why, sizeof why) == 1);

  /* verdicts belong to a version of the template: a flagged line of template "aaaa" stops
   * shipping records of "aaaa", not those of "bbbb"; a newer clean line of "bbbb" does not
   * clear "aaaa"'s; lines without a hash count for every version */
  s.config = "A=4", s.template_hash = "aaaa", s.v.tool = SAN_MEMCHECK, s.v.status = SAN_FLAGGED, s.v.errors = 2;
  snprintf(s.v.finding, sizeof s.v.finding, "Invalid __global__ write of size 4");
  CHECK(explain_append(spath, &s, &err) == 0);
  s.template_hash = "bbbb", s.v.status = SAN_CLEAN, s.v.errors = 0, s.v.finding[0] = 0;
  CHECK(explain_append(spath, &s, &err) == 0);
  CHECK(explain_verdict_ok(spath, "A=4", NULL, "aaaa", why, sizeof why) == 0 && strstr(why, "memcheck"));
  CHECK(explain_verdict_ok(spath, "A=4", NULL, "bbbb", why, sizeof why) == 1);
  CHECK(explain_verdict_ok(spath, "A=4", NULL, "cccc", why, sizeof why) == 1); /* unchecked */
  CHECK(explain_verdict_ok(spath, "A=2", NULL, "cccc", why, sizeof why) == 1); /* hashless lines count */
  CHECK(explain_verdict_ok(spath, "A=1", "N=8", "cccc", why, sizeof why) == 1);
  REQUIRE(explain_load(spath, &set, &skipped, &err) == 0);
  CHECK(explain_verdict(set, "A=4", NULL, "cccc", why, sizeof why) == EXPLAIN_UNCHECKED);
  CHECK(explain_verdict(set, "A=2", NULL, "cccc", why, sizeof why) == EXPLAIN_CLEAN);
  const explain_entry *last = explain_get(set, explain_count(set) - 1);
  CHECK(last && last->template_hash && !strcmp(last->template_hash, "bbbb")); /* written and read back */
  explain_free(set);
  free(side), free(spath), free(dir);
}

/* the isolated time is an optional field of the record: written when measured, absent in old stores */
static void test_record_isolated(void) {
  record r, back;
  record_init(&r);
  record_set_str(&r.space, "s"), record_set_str(&r.config, "A=1"), record_set_str(&r.problem, "N=8");
  r.t_median = 0.1323, r.t_isolated = 0.1281, r.samples = 20;
  dbuf j;
  dbuf_init(&j);
  record_to_json(&r, &j);
  CHECK(strstr(j.data, "\"isolated\":0.1281") != NULL);
  cterr err;
  REQUIRE(record_from_json(j.data, &back, &err) == 0);
  CHECK(near(back.t_isolated, 0.1281) && near(back.t_median, 0.1323));
  record_free(&back);
  r.t_isolated = NAN;
  dbuf_reset(&j);
  record_to_json(&r, &j);
  CHECK(strstr(j.data, "isolated") == NULL);
  REQUIRE(record_from_json(j.data, &back, &err) == 0);
  CHECK(isnan(back.t_isolated));
  record_free(&back), record_free(&r);
  dbuf_free(&j);
}

/* ncu's -k matches the base name: namespaces, template arguments and parameters dropped. */
static void test_kernel_filter(void) {
  const char *in[] = {"sum_floats", "copy_tpl<K>", "&ns::inner::gemm<float, 4>", "k(float*)", "a_b"};
  const char *want[] = {"regex:^sum_floats$", "regex:^copy_tpl$", "regex:^gemm$", "regex:^k$", "regex:^a_b$"};
  for (int i = 0; i < 5; i++) {
    char *f = ncu_kernel_filter(in[i]);
    CHECK_MSG(!strcmp(f, want[i]), "%s -> %s, wanted %s", in[i], f, want[i]);
    free(f);
  }
}

int main(void) {
  test_kernel_filter();
  test_record_isolated();
  test_csv();
  test_sanitizer();
  test_sidecar();
  return check_report();
}
