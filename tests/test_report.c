/* test_report: the end-of-run tables on synthetic records whose answers are known by
 * construction (a separable time model), plus the CSV/JSON exports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/report.h"
#include "report/report_svg.h"
#include "store/record_json.h"
#include "store/store.h"

static const int tiles[] = {16, 32, 64}, pads[] = {0, 1, 2}, vecs[] = {1, 2, 4};
/* time factors per value: PAD matters most, then TILE, then VEC */
static const double f_tile[] = {1.25, 1.0, 1.1}, f_pad[] = {1.6, 1.0, 1.02}, f_vec[] = {1.05, 1.0, 1.01};

static record *mk(int ti, int pi, int vi, rec_status st, double scale) {
  record *r = xmalloc(sizeof *r);
  record_init(r);
  char cfg[64], v[3][16];
  snprintf(v[0], 16, "%d", tiles[ti]), snprintf(v[1], 16, "%d", pads[pi]), snprintf(v[2], 16, "%d", vecs[vi]);
  snprintf(cfg, sizeof cfg, "TILE=%s,PAD=%s,VEC=%s", v[0], v[1], v[2]);
  const char *names[] = {"TILE", "PAD", "VEC"};
  for (int i = 0; i < 3; i++) r->pname[i] = xstrdup(names[i]), r->pvalue[i] = xstrdup(v[i]);
  r->nparams = 3;
  record_set_str(&r->space, "transpose");
  record_set_str(&r->config, cfg);
  record_set_str(&r->problem, "M=8192,N=8192");
  r->status = st;
  if (st == ST_OK) {
    r->t_median = 0.1342 * f_tile[ti] * f_pad[pi] * f_vec[vi] * scale; /* ms */
    r->gbps = 2.0 * 4 * 8192.0 * 8192 / (r->t_median * 1e-3) / 1e9;
    r->samples = 100 + ti;
    r->regs = 16 + 8 * vi;
    r->occupancy = 1.0 - 0.25 * ti;
    record_set_str(&r->limiter, ti ? "shared_memory" : "threads");
    record_set_str(&r->message, "");
  } else {
    record_set_str(&r->message, "templates/transpose.cu(37): error: bad\nsecond line");
  }
  r->smem_static = tiles[ti] * (tiles[ti] + pads[pi]) * 4;
  r->smem_dynamic = 0;
  r->spill_stores = vi, r->spill_loads = 2 * vi;
  r->block_threads = 256;
  return r;
}

static char *capture(void (*fn)(FILE *, void *), void *arg) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  fn(f, arg);
  fclose(f);
  return buf;
}

typedef struct {
  const record *const *recs;
  size_t n;
  int top;
  double copy;
  int ret;
} args;

static void do_best(FILE *f, void *a) {
  args *x = a;
  x->ret = report_best(f, x->recs, x->n, "M=8192,N=8192", x->top, x->copy);
}
static void do_effects(FILE *f, void *a) {
  args *x = a;
  x->ret = report_param_effects(f, x->recs, x->n, "M=8192,N=8192");
}
static void do_resources(FILE *f, void *a) {
  args *x = a;
  report_resources(f, x->recs, x->n);
}
static void do_csv(FILE *f, void *a) {
  args *x = a;
  report_csv(f, x->recs, x->n);
}
static void do_json(FILE *f, void *a) {
  args *x = a;
  report_json(f, x->recs, x->n);
}

/* the line of `text` that starts (after spaces) with `prefix` */
static const char *line_starting(const char *text, const char *prefix) {
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    const char *p = l;
    while (*p == ' ') p++;
    if (!strncmp(p, prefix, strlen(prefix))) return l;
  }
  return NULL;
}

/* The best-so-far curve fills its panel: a first guess 100x slower and the search's slow gains
 * after it (10.0 -> 9.0 over 200 evaluations) must spread over the height, not lie flat along
 * the floor under a y axis fitted to the first guess (issue 23, item 14). */
static void test_curve_span(void) {
  enum { N = 200 };
  double x[N], y[N];
  for (int i = 0; i < N; i++) x[i] = i + 1, y[i] = i == 0 ? 1000 : 10 - i / (double)N;
  dbuf b;
  dbuf_init(&b);
  svg_steps(&b, "c", "evaluations", "best so far", x, y, N);
  const char *pts = strstr(b.data, "points=\"");
  REQUIRE(pts != NULL);
  double lo = INFINITY, hi = -INFINITY, px, py;
  int k = 0, off;
  for (const char *p = pts + 8; sscanf(p, "%lf,%lf%n", &px, &py, &off) == 2; p += off, k++) {
    if (px < 0) break;
    if (k > 2) lo = py < lo ? py : lo, hi = py > hi ? py : hi; /* after the first drop */
  }
  CHECK_MSG(k > 10 && hi - lo > 100, "the curve after its first step spans %.0f px of height (%d points)", hi - lo, k);
  CHECK(strstr(b.data, "above the top") != NULL); /* the first guess is said, not plotted off scale */
  dbuf_free(&b);
}

/* The check hashes of a problem's records: two or more are named with their counts (records
 * without one counted apart, another problem's not at all); one, or none, writes nothing. */
static void test_check_mix(void) {
  record *r[6];
  const char *hash[] = {"aaaaaaaa11", "bbbbbbbb22", "aaaaaaaa11", NULL, "aaaaaaaa11", "cccccccc33"};
  for (int i = 0; i < 6; i++) {
    r[i] = mk(0, 0, i % 3, ST_OK, 1.0);
    if (hash[i]) record_set_str(&r[i]->check_hash, hash[i]);
  }
  record_set_str(&r[5]->problem, "M=1,N=1"); /* its own check: not mixed with the others */
  const record *const *v = (const record *const *)r;
  dbuf b;
  dbuf_init(&b);
  CHECK(report_check_mix(&b, v, 6, "M=8192,N=8192") == 2);
  CHECK_STR_CONTAINS(b.data, "2 checks (aaaaaaaa: 3 records, bbbbbbbb: 1 record; 1 record without a check hash");
  dbuf_reset(&b);
  CHECK(report_check_mix(&b, v, 6, "M=1,N=1") == 1);
  CHECK(b.len == 0);
  CHECK(report_check_mix(&b, v + 3, 1, "M=8192,N=8192") == 0); /* none at all: an older store */
  CHECK(b.len == 0);
  report_other_checks(&b, 0, "--all-checks shows them");
  CHECK(b.len == 0);
  report_other_checks(&b, 1, "--all-checks shows them");
  CHECK_STR_CONTAINS(b.data, "1 record measured under another check of its problem is left out");
  CHECK_STR_CONTAINS(b.data, "; --all-checks shows them)");
  dbuf_free(&b);
  for (int i = 0; i < 6; i++) record_free(r[i]), free(r[i]);
}

/* Where a compile-only run's time went: on 27 records whose compile time is 100 ms, x4 for TILE=64
 * and x2 for VEC=4 (PAD no factor), the total, the median, the heaviest, the tenth's share and the
 * parameters by the spread of their means, each's values in numeric order; fewer than 10: nothing. */
static void test_compile_times(void) {
  record *r[27];
  size_t n = 0;
  for (int t = 0; t < 3; t++)
    for (int p = 0; p < 3; p++)
      for (int v = 0; v < 3; v++) {
        r[n] = mk(2 - t, p, v, ST_OK, 1.0); /* TILE in the order 64, 32, 16: the report sorts them */
        r[n]->compile_ms = 100.0 * (t == 0 ? 4 : 1) * (v == 2 ? 2 : 1);
        n++;
      }
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  report_compile_times(m, (const record *const *)r, n, 4);
  fclose(m);
  /* TILE=64: 6 x 400 + 3 x 800 ms; the others 12 x 100 + 6 x 200: 4.8 + 2.4 = 7.2 s in all */
  CHECK_STR_CONTAINS(text, "compile time of the 27 compiled here: 7.2 s of NVRTC in all, median 0.20 s, mean 0.27 s");
  CHECK_STR_CONTAINS(text, "heaviest: TILE=64,PAD=0,VEC=4 (0.80 s)");
  CHECK_STR_CONTAINS(text, "the heaviest tenth took 33 % of it"); /* 3 x 800 of 7200 */
  CHECK_STR_CONTAINS(text, "    TILE            16: 0.13 s  32: 0.13 s  64: 0.53 s   (×4.00)");
  CHECK_STR_CONTAINS(text, "    VEC             1: 0.20 s  2: 0.20 s  4: 0.40 s   (×2.00)");
  CHECK(!strstr(text, "    PAD "));                    /* its values do not differ */
  CHECK(strstr(text, "TILE ") < strstr(text, "VEC ")); /* the larger spread first */
  free(text);
  text = NULL, len = 0;
  m = open_memstream(&text, &len);
  report_compile_times(m, (const record *const *)r, 9, 4);
  fclose(m);
  CHECK(len == 0);
  free(text);
  for (size_t i = 0; i < n; i++) record_free(r[i]), free(r[i]);
}

int main(void) {
  test_curve_span();
  test_check_mix();
  test_compile_times();
  record *all[40];
  size_t n = 0;
  /* a stale, slower measurement of the eventual winner first: the newer one must count */
  all[n++] = mk(1, 1, 1, ST_OK, 3.0);
  for (int t = 0; t < 3; t++)
    for (int p = 0; p < 3; p++)
      for (int v = 0; v < 3; v++) {
        rec_status st = ST_OK;
        if (t == 2 && p == 0 && v == 2) st = ST_COMPILE_ERROR;
        if (t == 0 && p == 2 && v == 0) st = ST_TIMEOUT;
        all[n++] = mk(t, p, v, st, 1.0);
      }
  /* a record of another problem, faster than everything: must not appear */
  record *other = mk(0, 0, 0, ST_OK, 0.01);
  record_set_str(&other->problem, "M=64,N=64");
  all[n++] = other;

  /* the expected order, by brute force over the model */
  const record *ok[40];
  size_t nok = 0;
  for (size_t i = 1; i < n - 1; i++)
    if (all[i]->status == ST_OK) ok[nok++] = all[i];
  for (size_t i = 0; i < nok; i++)
    for (size_t j = i + 1; j < nok; j++)
      if (ok[j]->t_median < ok[i]->t_median) {
        const record *tmp = ok[i];
        ok[i] = ok[j], ok[j] = tmp;
      }

  args a = {(const record *const *)all, n, 5, 0, 0};
  double copy = ok[0]->gbps / 0.97; /* the winner at 97.0 % of copy */
  a.copy = copy;
  char *out = capture(do_best, &a);
  fputs(out, stderr);
  CHECK(a.ret == 5);
  CHECK_STR_CONTAINS(out, "25 of 27 configurations passed");
  CHECK_STR_CONTAINS(out, "failures: 2 (1 compile_error, 1 timeout)");
  for (int rank = 1; rank <= 5; rank++) {
    char pre[16], cell[64];
    snprintf(pre, sizeof pre, "%d ", rank);
    const char *l = line_starting(out, pre);
    CHECK_MSG(l != NULL, "rank %d missing", rank);
    if (!l) continue;
    char *line = strndup(l, strcspn(l, "\n"));
    const record *r = ok[rank - 1];
    snprintf(cell, sizeof cell, "%.1f", r->t_median * 1e3);
    CHECK_STR_CONTAINS(line, cell);
    snprintf(cell, sizeof cell, "%.1f", r->gbps);
    CHECK_STR_CONTAINS(line, cell);
    /* columns: rank, TILE, PAD, VEC, ... */
    char tok[4][32];
    CHECK(sscanf(line, "%31s %31s %31s %31s", tok[0], tok[1], tok[2], tok[3]) == 4);
    for (int k = 0; k < 3; k++) CHECK_MSG(!strcmp(tok[k + 1], r->pvalue[k]), "rank %d param %d", rank, k);
    if (rank == 1) CHECK_STR_CONTAINS(line, "97.0");
    free(line);
  }
  CHECK(!line_starting(out, "6 "));
  CHECK(!strstr(out, "0.01")); /* the other problem */
  /* the header is aligned with the rows: "time µs" ends where the times end */
  const char *hdr = line_starting(out, "#"), *row1 = line_starting(out, "1 ");
  if (hdr && row1) {
    char *h = strndup(hdr, strcspn(hdr, "\n")), *r1 = strndup(row1, strcspn(row1, "\n"));
    char t1[32];
    snprintf(t1, sizeof t1, "%.1f", ok[0]->t_median * 1e3);
    const char *th = strstr(h, "time µs"), *tr = strstr(r1, t1);
    /* "µs" is 3 bytes for 2 columns: the header's end column is one byte further */
    CHECK(th && tr && (th - h) + (long)strlen("time µs") - 1 == (tr - r1) + (long)strlen(t1));
    free(h), free(r1);
  }
  free(out);

  /* param effects: PAD first (×1.60), then TILE (×1.25), then VEC (×1.05) */
  out = capture(do_effects, &a);
  fputs(out, stderr);
  CHECK(a.ret == 3);
  const char *lp = line_starting(out, "PAD"), *lt = line_starting(out, "TILE"), *lv = line_starting(out, "VEC");
  CHECK(lp && lt && lv && lp < lt && lt < lv);
  CHECK_STR_CONTAINS(out, "(×1.60)");
  CHECK_STR_CONTAINS(out, "(×1.25)");
  CHECK_STR_CONTAINS(out, "(×1.05)");
  if (lp) {
    char *line = strndup(lp, strcspn(lp, "\n")), want[64];
    snprintf(want, sizeof want, "0: %.1f µs", ok[0]->t_median * 1e3 * 1.6);
    CHECK_STR_CONTAINS(line, want);
    snprintf(want, sizeof want, "1: %.1f µs", ok[0]->t_median * 1e3);
    CHECK_STR_CONTAINS(line, want);
    free(line);
  }
  free(out);

  /* resources */
  out = capture(do_resources, &a);
  CHECK_STR_CONTAINS(out, "compile_error: templates/transpose.cu(37): error: bad");
  CHECK(!strstr(out, "second line"));
  CHECK_STR_CONTAINS(out, "timeout: templates");
  CHECK_STR_CONTAINS(out, "spills st/ld");
  CHECK_STR_CONTAINS(out, "2/4");
  CHECK_STR_CONTAINS(out, "50% shared_memory");
  {
    /* smem of TILE=64,PAD=2 is 64*66*4 */
    char want[32];
    snprintf(want, sizeof want, "%d", 64 * 66 * 4);
    CHECK_STR_CONTAINS(out, want);
  }
  free(out);

  /* CSV: a header and one row per record, the multi-line message quoted */
  out = capture(do_csv, &a);
  size_t lines = 0;
  int inq = 0;
  for (const char *p = out; *p; p++) {
    if (*p == '"') inq = !inq;
    if (*p == '\n' && !inq) lines++;
  }
  CHECK(lines == n + 1);
  const char *head = "space,config,problem,TILE,PAD,VEC,status,message,t_median_ms,";
  CHECK(!strncmp(out, head, strlen(head)));
  CHECK_STR_CONTAINS(out, "\"templates/transpose.cu(37): error: bad\nsecond line\"");
  CHECK_STR_CONTAINS(out, ",\"TILE=16,PAD=0,VEC=1\",");
  CHECK_STR_CONTAINS(out, ",raced_above_ms,race_ref,check_hash,launch_hash\n");
  free(out);

  /* CSV of raced records: the bound and which reference it was (a record of before race_ref
   * counts as the k-th best); a record timed in full leaves both empty */
  {
    record *rr[3] = {mk(0, 0, 0, ST_OK, 1.0), mk(1, 0, 0, ST_OK, 1.0), mk(2, 0, 0, ST_OK, 1.0)};
    rr[0]->t_raced = 2.5, record_set_str(&rr[0]->race_ref, RECORD_RACE_BEST);
    rr[1]->t_raced = 3.5;
    record_set_str(&rr[2]->check_hash, "0123456789abcdef0123456789abcdef");
    record_set_str(&rr[2]->launch_hash, "fedcba9876543210fedcba9876543210");
    args ra = {(const record *const *)rr, 3, 0, 0, 0};
    out = capture(do_csv, &ra);
    CHECK_STR_CONTAINS(out, ",2.5,best,,\n");
    CHECK_STR_CONTAINS(out, ",3.5,kth,,\n");
    /* the full one: both empty; its check hash, then its launch hash, last */
    CHECK_STR_CONTAINS(out, ",,,0123456789abcdef0123456789abcdef,fedcba9876543210fedcba9876543210\n");
    free(out);
    for (int k = 0; k < 3; k++) record_free(rr[k]), free(rr[k]);
  }

  /* JSON export: an array whose elements read back as records */
  out = capture(do_json, &a);
  CHECK(out[0] == '[');
  size_t back = 0;
  for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
    if (*l != '{') continue;
    size_t len = strlen(l);
    if (l[len - 1] == ',') l[len - 1] = 0;
    record r;
    cterr err;
    if (record_from_json(l, &r, &err) == 0) back++;
    record_free(&r);
  }
  CHECK(back == n);
  free(out);

  /* A space that gives flops (a GEMM): TFLOP/s, and neither GB/s nor % copy. 137.4 GFLOP per launch
   * (4096^3) at 3.0632 ms is 44.87 TFLOP/s. */
  {
    record *g = mk(1, 1, 1, ST_OK, 1.0);
    record_set_str(&g->problem, "M=8192,N=8192");
    g->t_median = 3.0632;
    g->gflops = 2.0 * 4096.0 * 4096 * 4096 / (g->t_median * 1e-3) / 1e9;
    const record *gv[1] = {g};
    args ga = {.recs = gv, .n = 1, .top = 5, .copy = 4000};
    out = capture(do_best, &ga);
    CHECK(ga.ret == 1);
    CHECK_STR_CONTAINS(out, "TFLOP/s");
    CHECK_STR_CONTAINS(out, "44.87");
    CHECK(!strstr(out, "GB/s"));
    CHECK(!strstr(out, "% copy"));
    free(out);
    record_free(g), free(g);
  }

  for (size_t i = 0; i < n; i++) record_free(all[i]), free(all[i]);
  return check_report();
}
