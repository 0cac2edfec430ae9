/* report: see report.h. */
#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "base/util.h"

/* ---- a plain-text table: cells as strings, columns sized to their widest cell ---- */

typedef struct {
  int ncol;
  const char *right; /* per column: 'r' right-aligned, anything else left */
  char **cell;       /* row-major, ncol per row; row 0 is the header */
  size_t nrow, cap;
  int col; /* next column of the current row */
} table;

static void tbl_init(table *t, int ncol, const char *right) {
  memset(t, 0, sizeof *t);
  t->ncol = ncol;
  t->right = right;
}

static void tbl_row(table *t) {
  if (t->nrow == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 16;
    t->cell = xrealloc(t->cell, t->cap * (size_t)t->ncol * sizeof *t->cell);
  }
  memset(t->cell + t->nrow * (size_t)t->ncol, 0, (size_t)t->ncol * sizeof *t->cell);
  t->nrow++;
  t->col = 0;
}

static void tbl_cell(table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tbl_cell(table *t, const char *fmt, ...) {
  dbuf b;
  va_list ap;
  dbuf_init(&b);
  va_start(ap, fmt);
  dbuf_vprintf(&b, fmt, ap);
  va_end(ap);
  if (t->col < t->ncol) t->cell[(t->nrow - 1) * (size_t)t->ncol + (size_t)t->col++] = dbuf_steal(&b);
  dbuf_free(&b);
}

/* display columns of UTF-8 text ("µs" is two) */
static size_t text_cols(const char *s) {
  size_t c = 0;
  for (; *s; s++) c += ((unsigned char)*s & 0xC0) != 0x80;
  return c;
}

static void tbl_print(FILE *out, table *t, const char *indent) {
  size_t *w = xcalloc((size_t)t->ncol, sizeof *w);
  for (size_t r = 0; r < t->nrow; r++)
    for (int c = 0; c < t->ncol; c++) {
      const char *s = t->cell[r * (size_t)t->ncol + (size_t)c];
      size_t n = s ? text_cols(s) : 0;
      if (n > w[c]) w[c] = n;
    }
  for (size_t r = 0; r < t->nrow; r++) {
    dbuf line;
    dbuf_init(&line);
    dbuf_puts(&line, indent);
    for (int c = 0; c < t->ncol; c++) {
      const char *s = t->cell[r * (size_t)t->ncol + (size_t)c];
      if (!s) s = "";
      size_t pad = w[c] - text_cols(s);
      int right = t->right && t->right[c] == 'r';
      if (c) dbuf_puts(&line, "  ");
      if (right)
        for (size_t i = 0; i < pad; i++) dbuf_puts(&line, " ");
      dbuf_puts(&line, s);
      if (!right && c + 1 < t->ncol)
        for (size_t i = 0; i < pad; i++) dbuf_puts(&line, " ");
    }
    while (line.len && line.data[line.len - 1] == ' ') line.data[--line.len] = 0;
    fprintf(out, "%s\n", line.data);
    dbuf_free(&line);
  }
  free(w);
}

static void tbl_free(table *t) {
  for (size_t i = 0; i < t->nrow * (size_t)t->ncol; i++) free(t->cell[i]);
  free(t->cell);
}

/* ---- selecting records ---- */

typedef struct {
  const record *r;
  size_t pos;
} sel;

static int cmp_key_pos(const void *a, const void *b) {
  const sel *x = a, *y = b;
  int c = strcmp(x->r->problem ? x->r->problem : "", y->r->problem ? y->r->problem : "");
  if (!c) c = strcmp(x->r->config ? x->r->config : "", y->r->config ? y->r->config : "");
  if (!c) c = (x->pos > y->pos) - (x->pos < y->pos);
  return c;
}

static int cmp_pos(const void *a, const void *b) {
  const sel *x = a, *y = b;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The last record of each (config, problem) for the problem asked, in recorded order. */
static sel *select_latest(const record *const *recs, size_t n, const char *problem, size_t *count) {
  sel *s = xmalloc((n ? n : 1) * sizeof *s);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (recs[i] && (!problem || (recs[i]->problem && !strcmp(recs[i]->problem, problem))))
      s[m].r = recs[i], s[m].pos = i, m++;
  qsort(s, m, sizeof *s, cmp_key_pos);
  size_t k = 0;
  for (size_t i = 0; i < m; i++) {
    if (i + 1 < m && !strcmp(s[i].r->problem ? s[i].r->problem : "", s[i + 1].r->problem ? s[i + 1].r->problem : "") &&
        !strcmp(s[i].r->config ? s[i].r->config : "", s[i + 1].r->config ? s[i + 1].r->config : ""))
      continue; /* a newer one follows */
    s[k++] = s[i];
  }
  qsort(s, k, sizeof *s, cmp_pos);
  *count = k;
  return s;
}

/* Parameter names in order of first appearance. */
static int param_names(const sel *s, size_t n, const char **names) {
  int k = 0;
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < s[i].r->nparams; j++) {
      int found = 0;
      for (int q = 0; q < k && !found; q++) found = !strcmp(names[q], s[i].r->pname[j]);
      if (!found && k < REC_MAX_PARAMS) names[k++] = s[i].r->pname[j];
    }
  return k;
}

static const char *param_value(const record *r, const char *name) {
  for (int i = 0; i < r->nparams; i++)
    if (!strcmp(r->pname[i], name)) return r->pvalue[i];
  return NULL;
}

static int usable(const record *r) { return record_timed(r); }

static char *fmt_us(double ms) {
  double us = ms * 1e3;
  return us < 10 ? xasprintf("%.2f", us) : xasprintf("%.1f", us);
}

static int cmp_time(const void *a, const void *b) {
  const record *x = ((const sel *)a)->r, *y = ((const sel *)b)->r;
  if (x->t_median != y->t_median) return x->t_median < y->t_median ? -1 : 1;
  return strcmp(x->config ? x->config : "", y->config ? y->config : "");
}

/* "failures: 3 compile_error, 1 timeout" over the selection */
static void print_failures(FILE *out, const sel *s, size_t n) {
  size_t by[ST_COUNT] = {0}, total = 0;
  for (size_t i = 0; i < n; i++)
    if (s[i].r->status != ST_OK && s[i].r->status < ST_COUNT) by[s[i].r->status]++, total++;
  if (!total) {
    fprintf(out, "no failures\n");
    return;
  }
  fprintf(out, "failures: %zu (", total);
  const char *sep = "";
  for (int k = 0; k < ST_COUNT; k++)
    if (by[k]) fprintf(out, "%s%zu %s", sep, by[k], rec_status_name((rec_status)k)), sep = ", ";
  fprintf(out, ")\n");
}

int report_best(FILE *out, const record *const *recs, size_t n, const char *problem, int top, double copy_gbps) {
  size_t m, nok = 0;
  sel *s = select_latest(recs, n, problem, &m);
  sel *ok = xmalloc((m ? m : 1) * sizeof *ok);
  for (size_t i = 0; i < m; i++)
    if (usable(s[i].r)) ok[nok++] = s[i];
  qsort(ok, nok, sizeof *ok, cmp_time);
  const char *names[REC_MAX_PARAMS];
  int np = param_names(s, m, names);

  int unchecked = 0;
  size_t nraced = 0;
  for (size_t i = 0; i < nok && !unchecked; i++) unchecked = ok[i].r->unchecked > 0;
  for (size_t i = 0; i < nok; i++) nraced += record_raced(ok[i].r);
  fprintf(out, "%s%s: %zu of %zu configurations %s", problem ? "problem " : "", problem ? problem : "all problems", nok,
          m, unchecked ? "ran (UNCHECKED: timing only, check = false; nothing was compared)" : "passed");
  if (nraced) /* docs/MEASURE.md: checked, timed until known slower than the table's last row */
    fprintf(out, " (%zu fully timed, %zu raced: timed only until clearly slower than the best)", nok - nraced, nraced);
  fputs("\n", out);
  size_t rows = top > 0 && (size_t)top < nok ? (size_t)top : nok;
  /* A space that gives flops (a GEMM) is judged by its arithmetic rate: TFLOP/s instead of
   * GB/s and % copy, which say nothing about a compute-bound kernel; with a cuBLAS baseline
   * (cublas_sgemm) also the share of cuBLAS SGEMM's time on the same problem. */
  int flops = 0, cublas = 0;
  for (size_t i = 0; i < nok && !flops; i++) flops = isfinite(ok[i].r->gflops) && ok[i].r->gflops > 0;
  for (size_t i = 0; i < nok && flops && !cublas; i++) cublas = isfinite(ok[i].r->cublas_share);
  if (rows) {
    int nrate = flops ? 1 + cublas : 2; /* the rate columns after "time" */
    int ncol = np + 5 + nrate;
    char *right = xmalloc((size_t)ncol + 1);
    memset(right, 'r', (size_t)ncol);
    right[ncol] = 0;
    for (int c = 0; c < np; c++) right[1 + c] = 'l';
    right[np + 2 + nrate] = 'l'; /* occupancy + limiter */
    table t;
    tbl_init(&t, ncol, right);
    tbl_row(&t);
    tbl_cell(&t, "#");
    for (int c = 0; c < np; c++) tbl_cell(&t, "%s", names[c]);
    tbl_cell(&t, "time µs");
    if (flops) {
      tbl_cell(&t, "TFLOP/s");
      if (cublas) tbl_cell(&t, "%% cuBLAS");
    } else tbl_cell(&t, "GB/s"), tbl_cell(&t, "%% copy");
    tbl_cell(&t, "occupancy");
    tbl_cell(&t, "regs"), tbl_cell(&t, "samples");
    for (size_t i = 0; i < rows; i++) {
      const record *r = ok[i].r;
      tbl_row(&t);
      tbl_cell(&t, "%zu", i + 1);
      for (int c = 0; c < np; c++) {
        const char *v = param_value(r, names[c]);
        tbl_cell(&t, "%s", v ? v : "-");
      }
      char *us = fmt_us(r->t_median);
      tbl_cell(&t, "%s", us);
      free(us);
      if (flops) {
        if (isfinite(r->gflops)) tbl_cell(&t, "%.2f", r->gflops / 1e3);
        else tbl_cell(&t, "-");
        if (cublas && isfinite(r->cublas_share)) tbl_cell(&t, "%.1f", 100 * r->cublas_share);
        else if (cublas) tbl_cell(&t, "-");
      } else {
        if (isfinite(r->gbps)) tbl_cell(&t, "%.1f", r->gbps);
        else tbl_cell(&t, "-");
        double share = copy_gbps > 0 && isfinite(r->gbps) ? r->gbps / copy_gbps : r->copy_share;
        if (isfinite(share)) tbl_cell(&t, "%.1f", 100 * share);
        else tbl_cell(&t, "-");
      }
      if (isfinite(r->occupancy))
        tbl_cell(&t, "%.0f%%%s%s", 100 * r->occupancy, r->limiter && *r->limiter ? " " : "",
                 r->limiter ? r->limiter : "");
      else tbl_cell(&t, "-");
      if (r->regs >= 0) tbl_cell(&t, "%d", r->regs);
      else tbl_cell(&t, "-");
      if (record_raced(r)) tbl_cell(&t, "%d raced", r->samples); /* not a full measurement: said so */
      else tbl_cell(&t, "%d", r->samples);
    }
    tbl_print(out, &t, "  ");
    tbl_free(&t);
    free(right);
  }
  print_failures(out, s, m);
  free(ok);
  free(s);
  return (int)rows;
}

/* ---- parameter effects ---- */

typedef struct {
  const char *name;
  int nval;
  const char **val;
  double *best; /* per value: best ok time, NAN if none */
  double spread;
  int order;
} effect;

static int all_numeric(const char **v, int n) {
  for (int i = 0; i < n; i++) {
    char *end;
    strtod(v[i], &end);
    if (end == v[i] || *end) return 0;
  }
  return 1;
}

static int cmp_numeric(const void *a, const void *b) {
  double x = strtod(*(const char *const *)a, NULL), y = strtod(*(const char *const *)b, NULL);
  return (x > y) - (x < y);
}

static int cmp_effect(const void *a, const void *b) {
  const effect *x = a, *y = b;
  if (x->spread != y->spread) return x->spread > y->spread ? -1 : 1;
  return x->order - y->order;
}

int report_param_effects(FILE *out, const record *const *recs, size_t n, const char *problem) {
  size_t m;
  sel *s = select_latest(recs, n, problem, &m);
  const char *names[REC_MAX_PARAMS];
  int np = param_names(s, m, names);
  effect *e = xcalloc((size_t)(np ? np : 1), sizeof *e);
  size_t namew = 0;
  for (int k = 0; k < np; k++) {
    e[k].name = names[k];
    e[k].order = k;
    e[k].val = xmalloc((m ? m : 1) * sizeof *e[k].val);
    if (strlen(names[k]) > namew) namew = strlen(names[k]);
    /* the values seen, in order of first appearance (then numerically when all are numbers) */
    for (size_t i = 0; i < m; i++) {
      const char *v = param_value(s[i].r, names[k]);
      int found = !v;
      for (int q = 0; q < e[k].nval && !found; q++) found = !strcmp(e[k].val[q], v);
      if (!found) e[k].val[e[k].nval++] = v;
    }
    if (all_numeric(e[k].val, e[k].nval)) qsort(e[k].val, (size_t)e[k].nval, sizeof *e[k].val, cmp_numeric);
    e[k].best = xmalloc((size_t)(e[k].nval ? e[k].nval : 1) * sizeof *e[k].best);
    for (int q = 0; q < e[k].nval; q++) e[k].best[q] = NAN;
    for (size_t i = 0; i < m; i++) {
      const char *v = param_value(s[i].r, names[k]);
      if (!v || !usable(s[i].r)) continue;
      for (int q = 0; q < e[k].nval; q++)
        if (!strcmp(e[k].val[q], v) && !(s[i].r->t_median >= e[k].best[q])) e[k].best[q] = s[i].r->t_median;
    }
    double lo = NAN, hi = NAN;
    for (int q = 0; q < e[k].nval; q++) {
      if (isnan(e[k].best[q])) continue;
      if (!(e[k].best[q] >= lo)) lo = e[k].best[q];
      if (!(e[k].best[q] <= hi)) hi = e[k].best[q];
    }
    e[k].spread = lo > 0 ? hi / lo : 1;
  }
  qsort(e, (size_t)np, sizeof *e, cmp_effect);
  for (int k = 0; k < np; k++) {
    dbuf line;
    dbuf_init(&line);
    dbuf_printf(&line, "  %-*s ", (int)namew, e[k].name);
    for (int q = 0; q < e[k].nval; q++) {
      if (isnan(e[k].best[q])) {
        dbuf_printf(&line, " %s: failed ", e[k].val[q]);
      } else {
        char *us = fmt_us(e[k].best[q]);
        dbuf_printf(&line, " %s: %s µs ", e[k].val[q], us);
        free(us);
      }
    }
    dbuf_printf(&line, "  (×%.2f)", e[k].spread);
    fprintf(out, "%s\n", line.data);
    dbuf_free(&line);
    free(e[k].val);
    free(e[k].best);
  }
  free(e);
  free(s);
  return np;
}

/* ---- resources (compile-only runs) ---- */

static void cell_int(table *t, int v) {
  if (v >= 0) tbl_cell(t, "%d", v);
  else tbl_cell(t, "-");
}

void report_resources(FILE *out, const record *const *recs, size_t n) {
  size_t m;
  sel *s = select_latest(recs, n, NULL, &m);
  const char *names[REC_MAX_PARAMS];
  int np = param_names(s, m, names);
  int ncol = np + 8;
  char *right = xmalloc((size_t)ncol + 1);
  memset(right, 'r', (size_t)ncol);
  right[ncol] = 0;
  for (int c = 0; c < np; c++) right[c] = 'l';
  right[np + 6] = right[np + 7] = 'l';
  table t;
  tbl_init(&t, ncol, right);
  tbl_row(&t);
  for (int c = 0; c < np; c++) tbl_cell(&t, "%s", names[c]);
  tbl_cell(&t, "regs"), tbl_cell(&t, "smem"), tbl_cell(&t, "dyn smem"), tbl_cell(&t, "spills st/ld");
  tbl_cell(&t, "local"), tbl_cell(&t, "threads"), tbl_cell(&t, "occupancy"), tbl_cell(&t, "status");
  /* in the order given, not deduplicated: a compile-only table lists what was compiled */
  for (size_t i = 0; i < n; i++) {
    const record *r = recs[i];
    if (!r) continue;
    tbl_row(&t);
    for (int c = 0; c < np; c++) {
      const char *v = param_value(r, names[c]);
      tbl_cell(&t, "%s", v ? v : "-");
    }
    cell_int(&t, r->regs), cell_int(&t, r->smem_static), cell_int(&t, r->smem_dynamic);
    if (r->spill_stores >= 0 || r->spill_loads >= 0)
      tbl_cell(&t, "%d/%d", r->spill_stores > 0 ? r->spill_stores : 0, r->spill_loads > 0 ? r->spill_loads : 0);
    else tbl_cell(&t, "-");
    cell_int(&t, r->local_bytes), cell_int(&t, r->block_threads);
    if (isfinite(r->occupancy))
      tbl_cell(&t, "%.0f%%%s%s", 100 * r->occupancy, r->limiter && *r->limiter ? " " : "",
               r->limiter ? r->limiter : "");
    else tbl_cell(&t, "-");
    if (r->status == ST_OK) {
      tbl_cell(&t, "ok");
    } else {
      const char *msg = r->message ? r->message : "";
      size_t len = strcspn(msg, "\n");
      if (len > 100) len = 100;
      tbl_cell(&t, "%s%s%.*s", rec_status_name(r->status), len ? ": " : "", (int)len, msg);
    }
  }
  tbl_print(out, &t, "  ");
  tbl_free(&t);
  free(right);
  free(s);
}

void report_other_checks(dbuf *out, size_t n, const char *show) {
  if (!n) return;
  dbuf_printf(out,
              "%zu record%s measured under another check of %s problem %s left out (the space's tolerance, "
              "mismatches, reference, check kernel or data differed then%s%s)",
              n, n == 1 ? "" : "s", n == 1 ? "its" : "their", n == 1 ? "is" : "are", show ? "; " : "",
              show ? show : "");
}

int report_check_mix(dbuf *out, const record *const *recs, size_t n, const char *problem) {
  enum { MAX = 8 };
  const char *hash[MAX];
  size_t count[MAX] = {0}, none = 0, more = 0;
  int k = 0;
  for (size_t i = 0; i < n; i++) {
    const record *r = recs[i];
    if (!r->problem || strcmp(r->problem, problem)) continue;
    if (!r->check_hash || !*r->check_hash) {
      none++;
      continue;
    }
    int j = 0;
    while (j < k && strcmp(hash[j], r->check_hash)) j++;
    if (j == k && k == MAX) more++;
    else {
      if (j == k) hash[k++] = r->check_hash;
      count[j]++;
    }
  }
  if (k + (more > 0) < 2) return k;
  dbuf_printf(out, "%s%d checks (", more ? "more than " : "", k);
  for (int j = 0; j < k; j++)
    dbuf_printf(out, "%s%.8s: %zu record%s", j ? ", " : "", hash[j], count[j], count[j] == 1 ? "" : "s");
  if (more) dbuf_printf(out, ", others: %zu record%s", more, more == 1 ? "" : "s");
  if (none) dbuf_printf(out, "; %zu record%s without a check hash, written before them", none, none == 1 ? "" : "s");
  dbuf_puts(out, ")");
  return k + (more > 0);
}

void report_space_errors(FILE *out, size_t n, const char *first, int stopped_after) {
  if (!n) return;
  fprintf(out,
          "%zu configuration%s failed in the space's own functions (space_error: a failure, evaluated again by the "
          "next run); first: %s\n",
          n, n == 1 ? "" : "s", first ? first : "?");
  if (stopped_after > 0)
    fprintf(out,
            "stopped early: the first %d configurations all failed so, most likely one mistake every configuration "
            "meets; fix the space and run again\n",
            stopped_after);
}
