/* driver: see driver.h. One configuration at a time by default: sequential strategies (local
 * search, BO) make their best choice when every earlier result is known; with a batch, the
 * strategy proposes N before it learns any of them (BO keeps the pending ones in its model). */
#include "driver.h"
#include "transfer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH_MAX 256

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void curve_push(search_outcome *o, double seconds, double cpu) {
  if (o->ncurve == o->cap) {
    o->cap = o->cap ? o->cap * 2 : 256;
    o->curve = xrealloc(o->curve, (size_t)o->cap * sizeof(double));
    o->curve_idx = xrealloc(o->curve_idx, (size_t)o->cap * sizeof(long));
    o->curve_s = xrealloc(o->curve_s, (size_t)o->cap * sizeof(double));
    o->step_cpu = xrealloc(o->step_cpu, (size_t)o->cap * sizeof(double));
  }
  o->curve[o->ncurve] = o->best;
  o->curve_idx[o->ncurve] = o->best_idx;
  o->curve_s[o->ncurve] = seconds;
  o->step_cpu[o->ncurve++] = cpu;
}

int search_run(strategy *s, const search_budget *budget, search_eval_fn eval, search_lookup_fn lookup, void *ctx,
               search_outcome *o, cterr *err) {
  memset(o, 0, sizeof *o);
  o->best_idx = -1;
  o->best = INFINITY;
  long max_evals = budget && budget->evals > 0 ? budget->evals : -1;
  double max_s = budget && budget->seconds > 0 ? budget->seconds : -1;
  int batch = budget && budget->batch > 1 ? budget->batch : 1;
  if (batch > BATCH_MAX) batch = BATCH_MAX;
  size_t idx[BATCH_MAX];
  double val[BATCH_MAX];
  int charged[BATCH_MAX];
  double cum[BATCH_MAX]; /* summed cost once evaluation j of the batch is done */
  double cst[BATCH_MAX]; /* what evaluation j cost (told to the strategy; NAN: looked up) */
  long patience = budget ? budget->patience : 0, improved_at = 0;
  double mark = INFINITY; /* the best at the last counted improvement */
  for (;;) {
    if (max_evals >= 0 && o->evals >= max_evals) break;
    if (max_s >= 0 && o->seconds >= max_s) break;
    if (transfer_stalled(o->evals, improved_at, patience)) break;
    int want = batch;
    if (max_evals >= 0 && max_evals - o->evals < want) want = (int)(max_evals - o->evals);
    double c0 = cpu_now();
    int k = strategy_ask(s, idx, want);
    double ask_cpu = cpu_now() - c0;
    o->strategy_cpu += ask_cpu;
    if (k < 1) break; /* the space is exhausted */
    for (int j = 0; j < k; j++) {
      charged[j] = 0, cst[j] = NAN;
      if (lookup && lookup(ctx, idx[j], &val[j])) {
        o->looked_up++;
        continue;
      }
      double cost = 0;
      rec_status st = ST_OK;
      if (eval(ctx, idx[j], &val[j], &cost, &st, err) < 0) return cterr_wrap(err, "evaluation %ld", o->evals + 1);
      if (st != ST_OK || isnan(val[j])) val[j] = INFINITY;
      o->evals++, charged[j] = 1;
      o->seconds += cost > 0 ? cost : 0;
      cst[j] = cost;
      cum[j] = o->seconds;
      if (!isfinite(val[j])) o->failed++;
    }
    int ncharged = 0;
    for (int j = 0; j < k; j++) ncharged += charged[j];
    for (int j = 0; j < k; j++) {
      c0 = cpu_now();
      strategy_tell_cost(s, idx[j], val[j], cst[j]);
      double tell_cpu = cpu_now() - c0;
      o->strategy_cpu += tell_cpu;
      if (val[j] < o->best) o->best = val[j], o->best_idx = (long)idx[j];
      if (transfer_improves(val[j], mark)) mark = val[j], improved_at = o->evals;
      /* the curve, one point per charged evaluation, in the order asked; the ask's CPU time
       * is shared out over the batch */
      if (charged[j]) curve_push(o, cum[j], ask_cpu / ncharged + tell_cpu);
    }
  }
  return 0;
}

void search_outcome_free(search_outcome *o) {
  if (!o) return;
  free(o->curve), free(o->curve_idx), free(o->curve_s), free(o->step_cpu);
  o->curve = NULL, o->curve_idx = NULL, o->curve_s = NULL, o->step_cpu = NULL;
  o->ncurve = o->cap = 0;
}
