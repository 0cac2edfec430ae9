/* report_html: the store as one HTML page (see report_html.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "report_html.h"
#include "report_svg.h"

static const char css[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#222;padding:0 16px}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}h3{font-size:15px}"
    "table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{padding:3px 8px;border-bottom:1px solid #eee;"
    "text-align:right;white-space:nowrap}th{background:#f4f4f4;cursor:pointer}td.l,th.l{text-align:left}"
    ".fig{display:block;margin:6px 0;max-width:100%;height:auto}.ax{stroke:#444}.grid{stroke:#eee}"
    ".tk{font-size:11px;fill:#444}.dim{fill:#999}.lb{font-size:12px;fill:#222}.bx{fill:#cfe0f5;stroke:#3b6ea8}"
    ".wh{stroke:#3b6ea8}.md{stroke:#123;stroke-width:2}.best{fill:#d33}.curve{fill:none;stroke:#d33;stroke-width:2}"
    ".pt{fill:#3b6ea8;opacity:.5}.flagged{color:#b00;font-weight:bold}.clean{color:#070}.none{color:#777}"
    ".grid2{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:4px 16px}"
    ".read{font-size:13px;margin:2px 0}code{font-size:12px}.note{background:#fff6d6;padding:4px 8px}";

/* sort a table by the clicked column; then mark the page as ready for the browser test */
static const char script[] =
    "(function(){document.querySelectorAll('table.sort th').forEach(function(th,i){th.addEventListener('click',"
    "function(){var tb=th.closest('table').tBodies[0],rows=Array.prototype.slice.call(tb.rows),"
    "asc=th.dataset.asc!=='1';th.dataset.asc=asc?'1':'0';rows.sort(function(a,b){var x=a.cells[i].textContent,"
    "y=b.cells[i].textContent,p=parseFloat(x),q=parseFloat(y);var c=(isNaN(p)||isNaN(q))?x.localeCompare(y):p-q;"
    "return asc?c:-c;});rows.forEach(function(r){tb.appendChild(r);});});});"
    "document.body.dataset.ready='1';})();";

static const char *param_of(const record *r, const char *name) {
  for (int i = 0; i < r->nparams; i++)
    if (r->pname[i] && !strcmp(r->pname[i], name)) return r->pvalue[i];
  return NULL;
}

static int usable(const record *r) { return record_timed(r); }

static int by_time(const void *a, const void *b) {
  const record *x = *(const record *const *)a, *y = *(const record *const *)b;
  return (x->t_median > y->t_median) - (x->t_median < y->t_median);
}

/* newest record per configuration of the problem, in store order of those newest records */
static const record **latest(const record *const *recs, size_t n, const char *problem, size_t *m) {
  const record **v = xcalloc(n ? n : 1, sizeof *v);
  size_t k = 0;
  for (size_t i = n; i-- > 0;) {
    const record *r = recs[i];
    if (!r->problem || strcmp(r->problem, problem) || !r->config) continue;
    int seen = 0;
    for (size_t j = 0; j < k && !seen; j++) seen = !strcmp(v[j]->config, r->config);
    if (!seen) v[k++] = r;
  }
  *m = k;
  return v;
}

static void td(dbuf *b, const char *cls, int prec, double v) {
  dbuf_printf(b, "<td%s>", cls ? cls : "");
  if (isfinite(v)) dbuf_printf(b, "%.*f", prec, v);
  else dbuf_puts(b, "&ndash;");
  dbuf_puts(b, "</td>");
}

static void verdict_cell(dbuf *b, const explain_set *ex, const char *config) {
  char why[700];
  explain_verdict_kind k = explain_verdict(ex, config, NULL, NULL, why, sizeof why);
  if (k == EXPLAIN_FLAGGED) {
    dbuf_puts(b, "<td class=\"l flagged\" title=\"");
    html_esc(b, why);
    dbuf_puts(b, "\">flagged</td>");
  } else {
    dbuf_printf(b, "<td class=\"l %s\">%s</td>", k == EXPLAIN_CLEAN ? "clean" : "none",
                k == EXPLAIN_CLEAN ? "clean" : "&ndash;");
  }
}

static void best_table(dbuf *b, int p, const record **ok, size_t nok, const record **all, size_t nall,
                       const explain_set *ex, int top) {
  const record *r0 = nok ? ok[0] : NULL;
  dbuf_printf(b, "<section id=\"best-%d\"><h3>The best configurations</h3>", p);
  size_t counts[ST_COUNT] = {0};
  for (size_t i = 0; i < nall; i++) counts[all[i]->status < ST_COUNT ? all[i]->status : 0]++;
  dbuf_printf(b, "<p>%zu configurations measured:", nall);
  for (int s = 0; s < ST_COUNT; s++)
    if (counts[s]) dbuf_printf(b, " %s %zu;", rec_status_name((rec_status)s), counts[s]);
  dbuf_puts(b, "</p>");
  if (!r0) {
    dbuf_puts(b, "<p class=\"none\">No configuration ran correctly on this problem.</p></section>");
    return;
  }
  dbuf_puts(b, "<table class=\"sort\"><thead><tr><th>#</th>");
  for (int k = 0; k < r0->nparams; k++) {
    dbuf_puts(b, "<th>");
    html_esc(b, r0->pname[k]);
    dbuf_puts(b, "</th>");
  }
  /* a GEMM (flops given) by its arithmetic rate and its share of cuBLAS, else GB/s and % copy */
  int flops = isfinite(r0->gflops) && r0->gflops > 0, cublas = flops && isfinite(r0->cublas_share);
  /* columns no shown row has a figure for are left out (and said so below the table) */
  int iso = 0, san = 0;
  char why[8];
  for (size_t i = 0; i < nok && (int)i < top; i++) {
    iso |= isfinite(ok[i]->t_isolated);
    san |= explain_verdict(ex, ok[i]->config, NULL, NULL, why, sizeof why) != EXPLAIN_UNCHECKED;
  }
  dbuf_printf(b, "<th>median µs</th>%s<th>%s</th><th>%s</th><th>samples</th>%s</tr></thead><tbody>",
              iso ? "<th>isolated µs</th>" : "", flops ? "TFLOP/s" : "GB/s", cublas ? "% cuBLAS" : "% copy",
              san ? "<th class=\"l\">sanitizers</th>" : "");
  for (size_t i = 0; i < nok && (int)i < top; i++) {
    const record *r = ok[i];
    dbuf_printf(b, "<tr><td>%zu</td>", i + 1);
    for (int k = 0; k < r0->nparams; k++) {
      dbuf_puts(b, "<td>");
      html_esc(b, param_of(r, r0->pname[k]));
      dbuf_puts(b, "</td>");
    }
    td(b, NULL, 1, r->t_median * 1e3);
    if (iso) td(b, NULL, 1, r->t_isolated * 1e3);
    td(b, NULL, flops ? 2 : 0, flops ? r->gflops / 1e3 : r->gbps);
    td(b, NULL, 1, (cublas ? r->cublas_share : r->copy_share) * 100);
    dbuf_printf(b, "<td>%d%s</td>", r->samples, record_raced(r) ? " raced" : ""); /* docs/MEASURE.md */
    if (san) verdict_cell(b, ex, r->config);
    dbuf_puts(b, "</tr>");
  }
  dbuf_puts(b, "</tbody></table>");
  if (!iso || !san)
    dbuf_printf(b, "<p class=\"none\">%s%s%s</p>",
                iso ? ""
                    : "No isolated per-launch times in these records (a run measures them for the contenders; "
                      "older stores lack them). ",
                san ? ""
                    : "No sanitizer verdicts on these configurations: <code>cutune explain SPACE.lua "
                      "--sanitize</code> records them.",
                "");
  dbuf_puts(b, "</section>");
}

static int all_numeric(const char *const *v, int n) {
  for (int i = 0; i < n; i++) {
    char *e;
    strtod(v[i], &e);
    if (!*v[i] || *e) return 0;
  }
  return 1;
}

static int cmp_num(const void *a, const void *b) {
  double x = atof(*(const char *const *)a), y = atof(*(const char *const *)b);
  return (x > y) - (x < y);
}

static void params_section(dbuf *b, int p, const record **ok, size_t nok) {
  dbuf_printf(b,
              "<section id=\"params-%d\"><h3>Time against each parameter's values</h3>"
              "<p>Each box spans the middle half of every correct configuration with that value (line: median; "
              "whiskers: best and worst; red dot: the best). Log scale, µs.</p><div class=\"grid2\">",
              p);
  if (!nok) {
    dbuf_puts(b, "</div></section>");
    return;
  }
  const record *r0 = ok[0];
  for (int k = 0; k < r0->nparams; k++) {
    const char *name = r0->pname[k];
    const char **cats = xcalloc(nok, sizeof *cats);
    int nc = 0;
    for (size_t i = 0; i < nok; i++) {
      const char *v = param_of(ok[i], name);
      int seen = !v;
      for (int c = 0; c < nc && !seen; c++) seen = !strcmp(cats[c], v);
      if (!seen) cats[nc++] = v;
    }
    if (all_numeric(cats, nc)) qsort(cats, (size_t)nc, sizeof *cats, cmp_num);
    double **vals = xcalloc((size_t)nc, sizeof *vals);
    size_t *nv = xcalloc((size_t)nc, sizeof *nv);
    for (int c = 0; c < nc; c++) vals[c] = xmalloc(nok * sizeof **vals);
    for (size_t i = 0; i < nok; i++) {
      const char *v = param_of(ok[i], name);
      for (int c = 0; c < nc; c++)
        if (v && !strcmp(cats[c], v)) vals[c][nv[c]++] = ok[i]->t_median * 1e3;
    }
    char id[64];
    snprintf(id, sizeof id, "params-%d-%d", p, k);
    dbuf_puts(b, "<div><h3>");
    html_esc(b, name);
    dbuf_puts(b, "</h3>");
    svg_boxes(b, id, "time, µs", cats, nc, vals, nv);
    dbuf_puts(b, "</div>");
    for (int c = 0; c < nc; c++) free(vals[c]);
    free(vals), free(nv), free(cats);
  }
  dbuf_puts(b, "</div></section>");
}

static double iso_seconds(const char *t) {
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  if (!t ||
      sscanf(t, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
    return NAN;
  tm.tm_year -= 1900, tm.tm_mon -= 1;
  return (double)timegm(&tm);
}

static void curve_section(dbuf *b, int p, const record *const *recs, size_t n, const char *problem) {
  size_t k = 0;
  double *x = xmalloc((n ? n : 1) * sizeof *x), *sec = xmalloc((n ? n : 1) * sizeof *sec),
         *y = xmalloc((n ? n : 1) * sizeof *y), t0 = NAN;
  for (size_t i = 0; i < n; i++) {
    const record *r = recs[i];
    if (!r->problem || strcmp(r->problem, problem)) continue;
    double s = iso_seconds(r->timestamp);
    if (isnan(t0)) t0 = s;
    x[k] = (double)(k + 1);
    sec[k] = s - t0;
    y[k] = usable(r) ? r->t_median * 1e3 : NAN;
    k++;
  }
  dbuf_printf(b,
              "<section id=\"curve-%d\"><h3>The search: best so far</h3><p>Every evaluation in the order the "
              "store recorded it (resumed runs continue the curve).</p><div class=\"grid2\">",
              p);
  char id[64];
  snprintf(id, sizeof id, "curve-%d-evals", p);
  svg_steps(b, id, "evaluations", "best so far, µs", x, y, k);
  snprintf(id, sizeof id, "curve-%d-seconds", p);
  svg_steps(b, id, "seconds since the first record", "best so far, µs", sec, y, k);
  dbuf_puts(b, "</div></section>");
  free(x), free(sec), free(y);
}

static void front_section(dbuf *b, int p, const record **ok, size_t nok) {
  size_t k = 0;
  double *x = xmalloc((nok ? nok : 1) * sizeof *x), *y = xmalloc((nok ? nok : 1) * sizeof *y);
  for (size_t i = 0; i < nok; i++)
    if (isfinite(ok[i]->energy_mj)) x[k] = ok[i]->t_median * 1e3, y[k] = ok[i]->energy_mj, k++;
  dbuf_printf(b, "<section id=\"front-%d\"><h3>Time and energy</h3>", p);
  if (k) {
    dbuf_printf(b,
                "<p>%zu configurations with energy per launch (NVML); the line joins the ones no other beats on "
                "both.</p>",
                k);
    char id[64];
    snprintf(id, sizeof id, "front-%d-svg", p);
    svg_front(b, id, "time, µs (log)", "energy per launch, mJ", x, y, k);
  } else {
    dbuf_puts(
        b, "<p class=\"none\">No energy was measured on this problem (add \"energy\" to the space's objectives).</p>");
  }
  dbuf_puts(b, "</section>");
  free(x), free(y);
}

static void resources_section(dbuf *b, int p, const record **ok, size_t nok, int top) {
  dbuf_printf(b,
              "<section id=\"resources-%d\"><h3>Resources of the top configurations</h3>"
              "<table class=\"sort\"><thead><tr><th>#</th><th>registers</th><th>static shared B</th>"
              "<th>local B</th><th>spill st/ld B</th><th>threads/block</th><th>occupancy %%</th>"
              "<th class=\"l\">limiter</th><th>compile ms</th></tr></thead><tbody>",
              p);
  for (size_t i = 0; i < nok && (int)i < top; i++) {
    const record *r = ok[i];
    dbuf_printf(b, "<tr><td>%zu</td><td>%d</td><td>%d</td><td>%d</td><td>%d/%d</td><td>%d</td>", i + 1, r->regs,
                r->smem_static, r->local_bytes, r->spill_stores, r->spill_loads, r->block_threads);
    td(b, NULL, 0, r->occupancy * 100);
    dbuf_puts(b, "<td class=\"l\">");
    html_esc(b, r->limiter && r->limiter[0] ? r->limiter : "none");
    dbuf_puts(b, "</td>");
    td(b, NULL, 0, r->compile_ms);
    dbuf_puts(b, "</tr>");
  }
  dbuf_puts(b, "</tbody></table></section>");
}

/* the newest ncu entry per configuration on the problem, in sidecar order */
static const explain_entry **ncu_entries(const explain_set *ex, const char *problem, size_t *m) {
  size_t n = explain_count(ex), k = 0;
  const explain_entry **v = xcalloc(n ? n : 1, sizeof *v);
  for (size_t i = 0; i < n; i++) {
    const explain_entry *e = explain_get(ex, i);
    if (e->kind == EXPLAIN_NCU && explain_find_ncu(ex, e->config, problem) == e) v[k++] = e;
  }
  *m = k;
  return v;
}

/* The rank of a configuration in the best table (1-based, as its "#" column and the resources
 * table number it), 0 when it is not among the ranked records. */
static size_t rank_of(const record **ok, size_t nok, const char *config) {
  for (size_t i = 0; i < nok; i++)
    if (ok[i]->config && !strcmp(ok[i]->config, config)) return i + 1;
  return 0;
}

/* A counters column's heading: "#N" for the best table's rank N, else "-" (the readings below
 * name every configuration). */
static void rank_label(dbuf *b, const record **ok, size_t nok, const char *config) {
  size_t r = rank_of(ok, nok, config);
  if (r) dbuf_printf(b, "#%zu", r);
  else dbuf_puts(b, "&ndash;");
}

static void explain_section(dbuf *b, int p, const explain_set *ex, const char *problem, const record **ok, size_t nok) {
  size_t n;
  const explain_entry **e = ncu_entries(ex, problem, &n);
  dbuf_printf(b, "<section id=\"explain-%d\"><h3>Why: Nsight Compute counters</h3>", p);
  if (!n) {
    dbuf_puts(b,
              "<p class=\"none\">No counters recorded for this problem: run <code>cutune explain SPACE.lua</code> on "
              "a machine with ncu.</p>");
  } else {
    dbuf_puts(b, "<table><thead><tr><th class=\"l\">metric</th>");
    for (size_t i = 0; i < n; i++) { /* numbered as the best table ranks them */
      dbuf_puts(b, "<th>");
      rank_label(b, ok, nok, e[i]->config);
      dbuf_puts(b, "</th>");
    }
    dbuf_puts(b, "</tr></thead><tbody>");
    static const struct {
      const char *label;
      int kind;
      ncu_metric m;
      double scale;
      int prec;
    } rows[] = {{"cutune back to back, µs", 1, 0, 1e3, 1},
                {"cutune isolated, µs", 2, 0, 1e3, 1},
                {"ncu gpu__time_duration, µs", 0, NM_DURATION_NS, 1e-3, 1},
                {"DRAM throughput, % of peak", 0, NM_DRAM_PCT, 1, 1},
                {"SM throughput, % of peak", 0, NM_SM_PCT, 1, 1},
                {"L1 hit rate, %", 0, NM_L1_HIT, 1, 1},
                {"L2 hit rate, %", 0, NM_L2_HIT, 1, 1},
                {"global ld sectors / request", 3, 0, 1, 1},
                {"global st sectors / request", 4, 0, 1, 1},
                {"shared ld wavefronts / instruction", 5, 0, 1, 2},
                {"shared st wavefronts / instruction", 6, 0, 1, 2},
                {"bank conflicts, shared loads", 0, NM_BANK_LD, 1, 0},
                {"bank conflicts, shared stores", 0, NM_BANK_ST, 1, 0},
                {"achieved occupancy, %", 0, NM_OCC_ACHIEVED, 1, 1},
                {"theoretical occupancy, %", 0, NM_OCC_THEORY, 1, 1},
                {"registers per thread", 0, NM_REGS, 1, 0},
                {"local-memory sectors (ld)", 0, NM_LOCAL_LD, 1, 0},
                {"local-memory sectors (st)", 0, NM_LOCAL_ST, 1, 0}};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
      dbuf_printf(b, "<tr><td class=\"l\">%s</td>", rows[r].label);
      for (size_t i = 0; i < n; i++) {
        const ncu_metrics *m = &e[i]->m;
        double v = rows[r].kind == 0   ? m->v[rows[r].m] * rows[r].scale
                   : rows[r].kind == 1 ? e[i]->cutune_median_ms * rows[r].scale
                   : rows[r].kind == 2 ? e[i]->cutune_isolated_ms * rows[r].scale
                   : rows[r].kind == 3 ? ncu_sectors_per_request(m, 0)
                   : rows[r].kind == 4 ? ncu_sectors_per_request(m, 1)
                   : rows[r].kind == 5 ? ncu_shared_ways(m, 0)
                                       : ncu_shared_ways(m, 1);
        td(b, NULL, rows[r].prec, v);
      }
      dbuf_puts(b, "</tr>");
    }
    dbuf_puts(b, "</tbody></table>");
    for (size_t i = 0; i < n; i++) {
      dbuf_puts(b, "<p class=\"read\"><b>");
      rank_label(b, ok, nok, e[i]->config);
      dbuf_puts(b, "</b> <code>");
      html_esc(b, e[i]->config);
      dbuf_puts(b, "</code>: ");
      html_esc(b, e[i]->reading);
      dbuf_puts(b, "</p>");
    }
  }
  /* sanitizer verdicts on any problem */
  int any = 0;
  for (size_t i = 0; i < explain_count(ex); i++) {
    const explain_entry *s = explain_get(ex, i);
    if (s->kind != EXPLAIN_SANITIZE || explain_find_san(ex, s->config, s->problem, s->v.tool) != s) continue;
    if (!any++)
      dbuf_puts(b,
                "<h3>compute-sanitizer</h3><table><thead><tr><th class=\"l\">configuration</th><th class=\"l\">"
                "problem</th><th class=\"l\">tool</th><th class=\"l\">verdict</th><th class=\"l\">first finding</th>"
                "</tr></thead><tbody>");
    dbuf_puts(b, "<tr><td class=\"l\"><code>");
    html_esc(b, s->config);
    dbuf_puts(b, "</code></td><td class=\"l\">");
    html_esc(b, s->problem);
    dbuf_printf(b, "</td><td class=\"l\">%s</td><td class=\"l %s\">%s</td><td class=\"l\">", san_tool_name(s->v.tool),
                s->v.status == SAN_FLAGGED ? "flagged"
                : s->v.status == SAN_CLEAN ? "clean"
                                           : "none",
                san_status_name(s->v.status));
    html_esc(b, s->v.finding);
    dbuf_puts(b, "</td></tr>");
  }
  if (any) dbuf_puts(b, "</tbody></table>");
  dbuf_puts(b, "</section>");
  free(e);
}

/* distinct values of a string field, "a, b" */
static void distinct(dbuf *b, const record *const *recs, size_t n, size_t off) {
  const char *seen[16];
  int k = 0;
  for (size_t i = 0; i < n && k < 16; i++) {
    const char *v = *(char *const *)((const char *)recs[i] + off);
    int dup = !v || !*v;
    for (int j = 0; j < k && !dup; j++) dup = !strcmp(seen[j], v);
    if (!dup) seen[k++] = v;
  }
  for (int j = 0; j < k; j++) {
    if (j) dbuf_puts(b, ", ");
    html_esc(b, seen[j]);
  }
  if (!k) dbuf_puts(b, "&ndash;");
}

static void provenance(dbuf *b, const record *const *recs, size_t n, const report_html_opts *o) {
  static const struct {
    const char *label;
    size_t off;
  } f[] = {{"GPU", offsetof(record, device_name)},
           {"UUID", offsetof(record, device_uuid)},
           {"compute capability", offsetof(record, device_cc)},
           {"architecture", offsetof(record, arch)},
           {"driver", offsetof(record, driver_version)},
           {"NVRTC", offsetof(record, nvrtc_version)},
           {"template hash", offsetof(record, template_hash)}};
  dbuf_puts(b, "<section id=\"provenance\"><h2>Provenance</h2><table>");
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    dbuf_printf(b, "<tr><th class=\"l\">%s</th><td class=\"l\">", f[i].label);
    distinct(b, recs, n, f[i].off);
    dbuf_puts(b, "</td></tr>");
  }
  const char *first = NULL, *last = NULL;
  for (size_t i = 0; i < n; i++)
    if (recs[i]->timestamp && *recs[i]->timestamp) {
      if (!first || strcmp(recs[i]->timestamp, first) < 0) first = recs[i]->timestamp;
      if (!last || strcmp(recs[i]->timestamp, last) > 0) last = recs[i]->timestamp;
    }
  dbuf_puts(b, "<tr><th class=\"l\">measured</th><td class=\"l\">");
  html_esc(b, first ? first : "?");
  dbuf_puts(b, " &ndash; ");
  html_esc(b, last ? last : "?");
  dbuf_printf(b, "</td></tr><tr><th class=\"l\">records</th><td class=\"l\">%zu</td></tr>", n);
  dbuf_puts(b, "<tr><th class=\"l\">store</th><td class=\"l\"><code>");
  html_esc(b, o->source ? o->source : "?");
  char *now = iso8601_now();
  dbuf_printf(b,
              "</code></td></tr><tr><th class=\"l\">this page</th><td class=\"l\">written %s by cutune report</td></tr>"
              "</table></section>",
              now);
  free(now);
}

int report_html(dbuf *b, const record *const *recs, size_t n, const explain_set *ex, const report_html_opts *o) {
  int top = o->top > 0 ? o->top : 15;
  dbuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
  html_esc(b, o->title);
  dbuf_printf(b, "</title><style>%s</style></head><body data-ready=\"0\"><h1>", css);
  html_esc(b, o->title);
  dbuf_puts(b, "</h1>");
  if (o->note) {
    dbuf_puts(b, "<p id=\"checks\" class=\"note\">");
    html_esc(b, o->note);
    dbuf_puts(b, "</p>");
  }
  /* problems in order of first appearance */
  const char **probs = xcalloc(n ? n : 1, sizeof *probs);
  int np = 0, mixed = 0;
  for (size_t i = 0; i < n; i++) {
    const char *p = recs[i]->problem;
    if (!p || (o->problem && strcmp(o->problem, p))) continue;
    int seen = 0;
    for (int j = 0; j < np && !seen; j++) seen = !strcmp(probs[j], p);
    if (!seen) probs[np++] = p;
  }
  if (!np) dbuf_puts(b, "<p class=\"none\">The store has no records.</p>");
  dbuf_puts(b, "<nav><p>");
  for (int p = 0; p < np; p++) {
    dbuf_printf(b, "%s<a href=\"#problem-%d\">", p ? " &middot; " : "Problems: ", p);
    html_esc(b, probs[p]);
    dbuf_puts(b, "</a>");
  }
  dbuf_puts(b, "</p></nav>");
  for (int p = 0; p < np; p++) {
    size_t nall, nok = 0;
    const record **all = latest(recs, n, probs[p], &nall);
    const record **ok = xcalloc(nall ? nall : 1, sizeof *ok);
    for (size_t i = 0; i < nall; i++)
      if (usable(all[i])) ok[nok++] = all[i];
    qsort(ok, nok, sizeof *ok, by_time);
    dbuf_printf(b, "<h2 id=\"problem-%d\">Problem ", p);
    html_esc(b, probs[p]);
    dbuf_puts(b, "</h2>");
    dbuf mix;
    dbuf_init(&mix);
    if (report_check_mix(&mix, recs, n, probs[p]) > 1) {
      mixed++;
      dbuf_printf(b, "<p id=\"checks-%d\" class=\"note\">Records of ", p);
      html_esc(b, mix.data);
      dbuf_puts(b, " are ranked together here, the newest record of each configuration whatever its check");
      if (o->mix_hint) {
        dbuf_puts(b, ": ");
        html_esc(b, o->mix_hint);
      }
      dbuf_puts(b, ".</p>");
    }
    dbuf_free(&mix);
    best_table(b, p, ok, nok, all, nall, ex, top);
    params_section(b, p, ok, nok);
    front_section(b, p, ok, nok);
    curve_section(b, p, recs, n, probs[p]);
    resources_section(b, p, ok, nok, top < 10 ? top : 10);
    explain_section(b, p, ex, probs[p], ok, nok);
    free(all), free(ok);
  }
  free(probs);
  provenance(b, recs, n, o);
  dbuf_printf(b, "<script>%s</script></body></html>\n", script);
  return mixed;
}
