/* driver: see driver.h. One configuration at a time: sequential strategies (local search, BO)
 * make their best choice when every earlier result is known. */
#include "driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void curve_push(search_outcome *o) {
  if (o->ncurve == o->cap) {
    o->cap = o->cap ? o->cap * 2 : 256;
    o->curve = xrealloc(o->curve, (size_t)o->cap * sizeof(double));
    o->curve_idx = xrealloc(o->curve_idx, (size_t)o->cap * sizeof(long));
  }
  o->curve[o->ncurve] = o->best;
  o->curve_idx[o->ncurve++] = o->best_idx;
}

int search_run(strategy *s, const search_budget *budget, search_eval_fn eval, search_lookup_fn lookup, void *ctx,
               search_outcome *o, cterr *err) {
  memset(o, 0, sizeof *o);
  o->best_idx = -1;
  o->best = INFINITY;
  long max_evals = budget && budget->evals > 0 ? budget->evals : -1;
  double max_s = budget && budget->seconds > 0 ? budget->seconds : -1;
  for (;;) {
    if (max_evals >= 0 && o->evals >= max_evals) break;
    if (max_s >= 0 && o->seconds >= max_s) break;
    size_t idx;
    if (strategy_ask(s, &idx, 1) < 1) break; /* the space is exhausted */
    double v;
    int charged = 0;
    if (lookup && lookup(ctx, idx, &v)) {
      o->looked_up++;
    } else {
      double cost = 0;
      rec_status st = ST_OK;
      if (eval(ctx, idx, &v, &cost, &st, err) < 0) return cterr_wrap(err, "evaluation %ld", o->evals + 1);
      if (st != ST_OK || isnan(v)) v = INFINITY;
      o->evals++, charged = 1;
      o->seconds += cost > 0 ? cost : 0;
      if (!isfinite(v)) o->failed++;
    }
    strategy_tell(s, idx, v);
    if (v < o->best) o->best = v, o->best_idx = (long)idx;
    if (charged) curve_push(o);
  }
  return 0;
}

void search_outcome_free(search_outcome *o) {
  if (!o) return;
  free(o->curve), free(o->curve_idx);
  o->curve = NULL, o->curve_idx = NULL;
  o->ncurve = o->cap = 0;
}
