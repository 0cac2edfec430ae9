/* report_compile: the summary of a compile-only run (report.h, report_compile_summary) and where
 * its compile time went (report_compile_times). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "base/util.h"

/* min..max of an int field over the ok records (-1: not reported); 0 when none had it. */
static int int_range(const record *const *recs, size_t n, size_t off, int *lo, int *hi) {
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    if (!recs[i] || recs[i]->status != ST_OK) continue;
    int v = *(const int *)((const char *)recs[i] + off);
    if (v < 0) continue;
    if (!any || v < *lo) *lo = v;
    if (!any || v > *hi) *hi = v;
    any = 1;
  }
  return any;
}

static void put_range(FILE *out, const char *what, const record *const *recs, size_t n, size_t off, const char *unit) {
  int lo = 0, hi = 0;
  if (!int_range(recs, n, off, &lo, &hi)) fprintf(out, "  %-22s -\n", what);
  else if (lo == hi) fprintf(out, "  %-22s %d%s\n", what, lo, unit);
  else fprintf(out, "  %-22s %d-%d%s\n", what, lo, hi, unit);
}

/* Records by limiter (its text), then occupancy (highest first), then registers (fewest). */
static int by_limiter(const void *a, const void *b) {
  const record *x = *(const record *const *)a, *y = *(const record *const *)b;
  int c = strcmp(x->limiter ? x->limiter : "", y->limiter ? y->limiter : "");
  if (c) return c;
  if (x->occupancy != y->occupancy) return x->occupancy > y->occupancy ? -1 : 1;
  return (x->regs > y->regs) - (x->regs < y->regs);
}

static int by_double_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

/* A parameter's values in one run: the mean compile time of each (in first-seen order). */
typedef struct pvals {
  const char *name;
  int nv;
  const char *val[32];
  double sum[32];
  int cnt[32];
  double spread; /* the largest mean over the smallest */
} pvals;

static int by_spread(const void *a, const void *b) {
  double x = ((const pvals *)a)->spread, y = ((const pvals *)b)->spread;
  return (x < y) - (x > y);
}

void report_compile_times(FILE *out, const record *const *recs, size_t n, int max_params) {
  double *ms = xcalloc(n + 1, sizeof *ms), total = 0;
  const record *heavy = NULL;
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (recs[i] && recs[i]->compile_ms > 0) {
      ms[m++] = recs[i]->compile_ms, total += recs[i]->compile_ms;
      if (!heavy || recs[i]->compile_ms > heavy->compile_ms) heavy = recs[i];
    }
  if (m < 10) {
    free(ms);
    return;
  }
  qsort(ms, m, sizeof *ms, by_double_desc);
  double tenth = 0;
  for (size_t i = 0; i < (m + 9) / 10; i++) tenth += ms[i];
  fprintf(out,
          "\ncompile time of the %zu compiled here: %.1f s of NVRTC in all, median %.2f s, mean %.2f s; the heaviest "
          "tenth took %.0f %% of it\n  heaviest: %s (%.2f s)\n",
          m, total / 1e3, ms[m / 2] / 1e3, total / m / 1e3, 100 * tenth / total, heavy->config,
          heavy->compile_ms / 1e3);
  pvals *pv = xcalloc(REC_MAX_PARAMS, sizeof *pv);
  int np = heavy->nparams < REC_MAX_PARAMS ? heavy->nparams : REC_MAX_PARAMS;
  for (int p = 0; p < np; p++) pv[p].name = heavy->pname[p];
  for (size_t i = 0; i < n; i++) {
    const record *r = recs[i];
    if (!r || !(r->compile_ms > 0) || r->nparams != heavy->nparams) continue;
    for (int p = 0; p < np; p++) {
      int k = 0;
      while (k < pv[p].nv && strcmp(pv[p].val[k], r->pvalue[p])) k++;
      if (k == pv[p].nv) {
        if (k == 32) continue;
        pv[p].val[pv[p].nv++] = r->pvalue[p];
      }
      pv[p].sum[k] += r->compile_ms, pv[p].cnt[k]++;
    }
  }
  int shown = 0;
  for (int p = 0; p < np; p++) { /* the values in numeric order where they are numbers (a space's order, mostly) */
    int numeric = 1;
    for (int k = 0; k < pv[p].nv && numeric; k++) {
      char *end;
      strtod(pv[p].val[k], &end);
      numeric = end != pv[p].val[k] && !*end;
    }
    for (int k = 1; k < pv[p].nv && numeric; k++)
      for (int j = k; j > 0 && strtod(pv[p].val[j - 1], NULL) > strtod(pv[p].val[j], NULL); j--) {
        const char *v = pv[p].val[j];
        double su = pv[p].sum[j];
        int c = pv[p].cnt[j];
        pv[p].val[j] = pv[p].val[j - 1], pv[p].sum[j] = pv[p].sum[j - 1], pv[p].cnt[j] = pv[p].cnt[j - 1];
        pv[p].val[j - 1] = v, pv[p].sum[j - 1] = su, pv[p].cnt[j - 1] = c;
      }
  }
  for (int p = 0; p < np; p++) {
    double lo = INFINITY, hi = 0;
    for (int k = 0; k < pv[p].nv; k++)
      lo = fmin(lo, pv[p].sum[k] / pv[p].cnt[k]), hi = fmax(hi, pv[p].sum[k] / pv[p].cnt[k]);
    pv[p].spread = pv[p].nv > 1 && lo > 0 ? hi / lo : 1;
  }
  qsort(pv, (size_t)np, sizeof *pv, by_spread);
  for (int p = 0; p < np && shown < max_params; p++) {
    if (pv[p].spread < 1.5) break;
    if (!shown++)
      fprintf(out, "  mean per value, the parameters whose values differ most (a batch's time split evenly):\n");
    fprintf(out, "    %-14s", pv[p].name);
    for (int k = 0; k < pv[p].nv; k++) fprintf(out, "  %s: %.2f s", pv[p].val[k], pv[p].sum[k] / pv[p].cnt[k] / 1e3);
    fprintf(out, "   (×%.2f)\n", pv[p].spread);
  }
  free(pv), free(ms);
}

void report_compile_summary(FILE *out, const record *const *recs, size_t n, int per_limiter) {
  size_t by[ST_COUNT] = {0}, total = 0, spilled = 0, nok = 0;
  double occ_lo = INFINITY, occ_hi = -INFINITY;
  const record **ok = xcalloc(n + 1, sizeof *ok);
  for (size_t i = 0; i < n; i++) {
    const record *r = recs[i];
    if (!r) continue;
    total++;
    if (r->status < ST_COUNT) by[r->status]++;
    if (r->status != ST_OK) continue;
    ok[nok++] = r;
    spilled += r->spill_stores > 0 || r->spill_loads > 0;
    if (isfinite(r->occupancy)) occ_lo = fmin(occ_lo, r->occupancy), occ_hi = fmax(occ_hi, r->occupancy);
  }
  fprintf(out, "%zu configurations: %zu compiled", total, by[ST_OK]);
  for (int k = 0; k < ST_COUNT; k++)
    if (k != ST_OK && by[k]) fprintf(out, ", %zu %s", by[k], rec_status_name((rec_status)k));
  fprintf(out, "\n");
  if (nok) {
    fprintf(out, "resources of the %zu that compiled:\n", nok);
    put_range(out, "registers", ok, nok, offsetof(record, regs), "");
    put_range(out, "static shared memory", ok, nok, offsetof(record, smem_static), " B");
    put_range(out, "dynamic shared memory", ok, nok, offsetof(record, smem_dynamic), " B");
    put_range(out, "local memory", ok, nok, offsetof(record, local_bytes), " B");
    put_range(out, "threads per block", ok, nok, offsetof(record, block_threads), "");
    fprintf(out, "  %-22s %zu configuration%s\n", "spilling", spilled, spilled == 1 ? "" : "s");
    if (isfinite(occ_lo)) fprintf(out, "  %-22s %.0f-%.0f %% (theoretical)\n", "occupancy", 100 * occ_lo, 100 * occ_hi);
  }
  /* per limiter: how many it limits, and the configurations it limits least */
  qsort(ok, nok, sizeof *ok, by_limiter);
  const record **best = xcalloc(nok + 1, sizeof *best);
  size_t nbest = 0;
  if (nok && per_limiter > 0)
    fprintf(out, "\ntheoretical occupancy by limiter (what caps the blocks per multiprocessor):\n");
  for (size_t i = 0; i < nok && per_limiter > 0;) {
    size_t j = i;
    while (j < nok && !strcmp(ok[j]->limiter ? ok[j]->limiter : "", ok[i]->limiter ? ok[i]->limiter : "")) j++;
    const char *lim = ok[i]->limiter && *ok[i]->limiter ? ok[i]->limiter : "(unknown)";
    double lo = 100 * ok[j - 1]->occupancy, hi = 100 * ok[i]->occupancy;
    fprintf(out, "  %-16s %6zu configurations, occupancy ", !strcmp(lim, "none") ? "none (full)" : lim, j - i);
    if (lo == hi) fprintf(out, "%.0f %%\n", hi);
    else fprintf(out, "%.0f-%.0f %%\n", lo, hi);
    for (size_t k = i; k < j && k < i + (size_t)per_limiter; k++) best[nbest++] = ok[k];
    i = j;
  }
  if (nbest) {
    fprintf(out, "\nthe highest theoretical occupancy of each limiter (at most %d each):\n", per_limiter);
    report_resources(out, best, nbest);
  }
  free(best), free(ok);
}
