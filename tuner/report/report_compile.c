/* report_compile: the summary of a compile-only run (report.h, report_compile_summary). */
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
