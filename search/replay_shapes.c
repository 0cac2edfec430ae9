/* replay_shapes: `cutune run --replay STORE SPACE.lua --shapes` — a shape set tuned on recorded
 * measurements, each shape once from a cold start and once with transfer (search/transfer.h:
 * seeds from the winners of the shapes replayed before it, then the search until it stalls),
 * shape by shape in the tuning order `cutune run` uses. Per shape and in total it prints the
 * evaluations spent and those needed to come within --within (2 %) of the shape's recorded
 * optimum, so what transfer saves is a count, not a time (tests/cli_shapes_replay.sh asserts it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "replay.h"
#include "replay_shapes.h"
#include "space/space.h"
#include "transfer.h"

/* What one shape's search gave. */
typedef struct shape_run {
  long evals, to_within; /* to_within: -1 never */
  double best;           /* INFINITY none */
  int seeds, nfrom, from[4];
  int best_seeded; /* the best is one of the seeds */
} shape_run;

typedef struct eval_ctx {
  replay_eval ev;
  transfer *tx;
  int id;
  const uint64_t *fam;
} eval_ctx;

static int eval_note(void *ctx, size_t idx, double *value, double *cost, rec_status *st, cterr *err) {
  eval_ctx *c = ctx;
  if (replay_evaluate(&c->ev, idx, value, cost, st, err) < 0) return -1;
  if (*st == ST_OK) transfer_note(c->tx, c->id, idx, c->fam[idx], *value);
  return 0;
}

/* The family of each configuration: its compile-time parameters (runtime ones share a compile). */
static uint64_t *families(const space *sp, const configset *cs) {
  size_t n = configset_count(cs);
  uint64_t *f = xcalloc(n ? n : 1, sizeof *f);
  for (size_t i = 0; i < n; i++) {
    const uint16_t *row = configset_row(cs, i);
    uint64_t h = 1469598103934665603ULL;
    for (int p = 0; p < configset_nparams(cs); p++)
      if (!space_param_runtime(sp, p)) h = (h ^ (uint64_t)(row[p] + 1)) * 1099511628211ULL;
    f[i] = h;
  }
  return f;
}

/* One shape: a fresh strategy (seeded from tx when transfer), the search, the count to within. */
static int run_shape(const replay_shapes_opts *o, const configset *cs, const replay *r, transfer *tx, int id,
                     const int64_t *dims, const uint64_t *fam, int transfer_on, shape_run *out, cterr *err) {
  memset(out, 0, sizeof *out);
  out->to_within = -1, out->best = INFINITY;
  strategy_opts so;
  strategy_opts_default(&so);
  so.budget_hint = o->budget;
  strategy *s = NULL;
  const char *name = o->strategy ? o->strategy : strategy_default_name(configset_count(cs), o->budget);
  size_t seeds[64];
  int from[64];
  search_budget b = {.evals = o->budget};
  if (transfer_on) {
    out->seeds = transfer_seeds(tx, id, dims, o->near, o->per, seeds, 64, from, &out->nfrom);
    if (out->nfrom > 4) out->nfrom = 4;
    memcpy(out->from, from, sizeof out->from);
    if (out->seeds) so.hybrid_min = out->seeds + TRANSFER_HYBRID_MIN;
  }
  if (strategy_new(name, cs, o->seed, &so, &s, err) < 0) return -1;
  if (out->seeds) strategy_seed(s, seeds, (size_t)out->seeds, 0), b.patience = o->patience;
  eval_ctx c = {.ev = {.r = r}, .tx = tx, .id = id, .fam = fam};
  search_outcome so_out = {0};
  int rc = search_run(s, &b, eval_note, NULL, &c, &so_out, err);
  if (rc == 0) {
    long opt = replay_optimum(r);
    double goal = opt >= 0 ? replay_value(r, (size_t)opt) * (1 + o->within) : -INFINITY;
    out->evals = so_out.evals;
    out->best = so_out.best;
    for (long k = 0; k < so_out.ncurve && out->to_within < 0; k++)
      if (so_out.curve[k] <= goal) out->to_within = k + 1;
    for (int k = 0; k < out->seeds; k++) out->best_seeded |= (long)seeds[k] == so_out.best_idx;
  }
  search_outcome_free(&so_out);
  strategy_free(s);
  return rc;
}

static void cell_within(long v) {
  if (v < 0) printf(" %7s", "never");
  else printf(" %7ld", v);
}

int search_replay_shapes(const char *file, const space *sp, const replay_shapes_opts *o, cterr *err) {
  const configset *cs = space_configs(sp);
  int ns = space_nproblems(sp), nv = space_problem_nvars(sp, 0), rc = -1, nsel = 0;
  int *sel = xcalloc((size_t)ns, sizeof *sel), *order = xcalloc((size_t)ns, sizeof *order);
  int64_t *dims = xcalloc((size_t)ns * (size_t)nv + 1, sizeof *dims);
  replay **rp = xcalloc((size_t)ns, sizeof *rp);
  shape_run *cold = xcalloc((size_t)ns, sizeof *cold), *warm = xcalloc((size_t)ns, sizeof *warm);
  uint64_t *fam = families(sp, cs);
  transfer *tx_cold = transfer_new(nv), *tx = transfer_new(nv);
  for (int p = 0; p < ns; p++) {
    if (space_problem_nvars(sp, p) != nv) {
      cterr_set(err, "%s: problem %s has other sizes than %s (a shape set has one set of sizes)", space_path(sp),
                space_problem_key(sp, p), space_problem_key(sp, 0));
      goto done;
    }
    for (int j = 0; j < nv; j++) space_problem_var(sp, p, j, &dims[(size_t)p * nv + j]);
  }
  /* the selected shapes, in the tuning order (first selected first, then nearest to those before) */
  {
    int64_t *sd = xcalloc((size_t)ns * (size_t)nv + 1, sizeof *sd);
    int *map = xcalloc((size_t)ns, sizeof *map);
    for (int p = 0; p < ns; p++)
      if (!o->selected || o->selected(o->sel_ctx, p)) {
        memcpy(sd + (size_t)nsel * nv, dims + (size_t)p * nv, (size_t)nv * sizeof *sd);
        map[nsel++] = p;
      }
    int k = o->listed ? nsel : transfer_order(sd, nsel, nv, NULL, order);
    for (int i = 0; i < k; i++) order[i] = o->listed ? map[i] : map[order[i]];
    free(sd), free(map);
  }
  if (nsel == 0) {
    cterr_set(err, "--shapes: no problem selected");
    goto done;
  }
  for (int i = 0; i < nsel; i++) {
    int p = order[i];
    if (replay_load_for(file, space_problem_key(sp, p), cs, &rp[p], err) < 0) goto done;
    transfer_shape(tx, p, dims + (size_t)p * nv);
    transfer_shape(tx_cold, p, dims + (size_t)p * nv);
    if ((o->cold && run_shape(o, cs, rp[p], tx_cold, p, dims + (size_t)p * nv, fam, 0, &cold[p], err) < 0) ||
        run_shape(o, cs, rp[p], tx, p, dims + (size_t)p * nv, fam, 1, &warm[p], err) < 0)
      goto done;
  }
  printf("shapes: %d of %s on %s (%zu configurations each), %s order; strategy %s, --budget %ld per shape\n", nsel,
         space_path(sp), file, configset_count(cs), o->listed ? "listed" : "nearest-first",
         o->strategy ? o->strategy : strategy_default_name(configset_count(cs), o->budget), o->budget);
  printf(
      "transfer: the best %d of each of the %d nearest shapes replayed before, measured first; then the search "
      "until %ld evaluations in a row gain less than %.1f %%\n",
      o->per, o->near, o->patience, 100 * TRANSFER_IMPROVE);
  printf("'to %.0f %%': evaluations until the best is within %.0f %% of the shape's recorded optimum\n\n",
         100 * o->within, 100 * o->within);
  char tw[32];
  snprintf(tw, sizeof tw, "to %.0f %%", 100 * o->within);
  if (o->cold) printf("%3s  %-28s %6s %7s %8s  |", "", "", "cold:", "", "");
  printf("%s %5s %7s %7s %8s  %-11s\n", o->cold ? "" : "", "", "transfer:", "", "", "");
  printf("%3s  %-28s", "#", "shape");
  if (o->cold) printf(" %6s %7s %8s  |", "evals", tw, "best");
  printf(" %5s %7s %7s %8s  %-11s %s\n", "seeds", "evals", tw, "best", "best from", "nearest replayed before");
  long sum_c = 0, sum_w = 0, spent_c = 0, spent_w = 0, hit_c = 0, hit_w = 0, tail = 0, ntail = 0;
  for (int i = 0; i < nsel; i++) {
    int p = order[i];
    long opt = replay_optimum(rp[p]);
    double ov = opt >= 0 ? replay_value(rp[p], (size_t)opt) : NAN;
    printf("%3d  %-28s", i + 1, space_problem_key(sp, p));
    if (o->cold) {
      printf(" %6ld", cold[p].evals);
      cell_within(cold[p].to_within);
      printf(" %6.1f %%  |", 100 * ov / cold[p].best);
      sum_c += cold[p].to_within >= 0 ? cold[p].to_within : cold[p].evals, spent_c += cold[p].evals;
      hit_c += cold[p].to_within >= 0;
    }
    printf(" %5d %7ld", warm[p].seeds, warm[p].evals);
    cell_within(warm[p].to_within);
    printf(" %6.1f %%  %-11s", 100 * ov / warm[p].best,
           warm[p].seeds == 0    ? "(cold)"
           : warm[p].best_seeded ? "a seed"
                                 : "the search");
    for (int j = 0; j < warm[p].nfrom && j < 3; j++)
      printf("%s%s", j ? " " : "", space_problem_key(sp, warm[p].from[j]));
    printf("\n");
    sum_w += warm[p].to_within >= 0 ? warm[p].to_within : warm[p].evals, spent_w += warm[p].evals;
    hit_w += warm[p].to_within >= 0;
    if (i >= nsel / 2) tail += warm[p].evals, ntail++;
  }
  printf(
      "\nevaluations to within %.0f %% of each shape's optimum (a shape that never got there counts what it spent):\n",
      100 * o->within);
  if (o->cold)
    printf("  cold:     %ld in all, %.1f per shape, %ld of %d shapes within\n", sum_c, (double)sum_c / nsel, hit_c,
           nsel);
  printf("  transfer: %ld in all, %.1f per shape, %ld of %d shapes within\n", sum_w, (double)sum_w / nsel, hit_w, nsel);
  printf("evaluations spent: ");
  if (o->cold) printf("cold %ld, ", spent_c);
  printf("transfer %ld (the first shape %ld, the last %ld shapes %.1f each on average)\n", spent_w,
         warm[order[0]].evals, ntail, ntail ? (double)tail / ntail : 0.0);
  rc = 0;
done:
  for (int p = 0; p < ns; p++) replay_free(rp[p]);
  free(rp), free(sel), free(order), free(dims), free(cold), free(warm), free(fam);
  transfer_free(tx), transfer_free(tx_cold);
  return rc;
}
