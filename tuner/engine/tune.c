/* tune: the GPU path of `cutune run`. Per GPU model a strategy proposes configurations; the
 * exec (exec.h: this host's devices, or MPI ranks) compiles and measures them; every record
 * goes to its model's store the moment it exists. Configurations already in the store (same
 * template and options, checked as the problem is now) are answered from it without measuring
 * or charging the budget. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tune_int.h"
#include "report/progress.h"
#include "report/report.h"
#include "tune.h"
#include "store/store.h"
#include "search/strategy.h"

static void on_sigint(int sig) {
  (void)sig;
  tune_interrupted = 1;
}

/* The options hash of every configuration for arch, once: it keys resume lookups, provenance
 * and the final report. */
static double record_value(const record *r) { return record_timed(r) ? r->t_median : INFINITY; }

/* What measuring r cost, in seconds (record_cost_ms, as `cutune score --cost time` counts a
 * cutune store); NAN when the record says neither. */
static double record_cost_s(const record *r) {
  double c = record_cost_ms(r);
  return c > 0 ? c / 1000.0 : NAN;
}

void tune_limits(size_t count, const run_opts *o, long *budget, double *time_limit, const char **sname,
                 const char **note) {
  *budget = o->budget > 0 ? o->budget : (long)count;
  *time_limit = o->time_limit;
  *note = "";
  int exh = o->strategy && !strcmp(o->strategy, "exhaustive");
  if (o->budget <= 0 && o->time_limit <= 0 && !exh && count > TUNE_EXHAUSTIVE_MAX) {
    /* too large to measure whole in minutes: a budgeted search by default */
    *budget = TUNE_DEFAULT_BUDGET;
    *time_limit = TUNE_DEFAULT_TIME;
    *note =
        " (default for a space this large: --budget " XSTR(TUNE_DEFAULT_BUDGET) " --time " XSTR(TUNE_DEFAULT_TIME) ")";
  } else if (o->budget <= 0 && o->time_limit <= 0) {
    /* the default walk says its order; an explicit strategy is its own */
    *note = o->strategy ? " (the whole space)" : " (the whole space, in a seeded random order)";
  }
  /* only --time on a large space: it will not be covered, so search rather than walk it in
   * order. A space walked whole (or as far as --time goes) is walked in a seeded random order
   * without repeats, not the enumeration's: the enumeration's first corner (the first
   * parameter's first values) is a poor sample of the rest where the time ends the walk
   * (Kernel Tuner's random_sample with time_limit), and in order a space's slow corner comes
   * first and its better variants one after the other, each better than the k-th best so far,
   * so racing (docs/MEASURE.md) times most of them in full; in a random order the k best are
   * good ones after a few dozen and the rest is raced. Every problem walks the same order (one
   * seed), so their windows share compiles, and the runtime sweep keeps a compile's siblings
   * together. --strategy exhaustive keeps the enumeration's order. */
  int time_only = o->budget <= 0 && *time_limit > 0;
  const char *dflt = strategy_default_name(count, time_only && count > TUNE_EXHAUSTIVE_MAX ? -1 : *budget);
  if (!strcmp(dflt, "exhaustive")) dflt = "random";
  *sname = o->strategy ? o->strategy : dflt;
}

/* What one group's loop keeps between configurations of a problem. */
typedef struct tune_tally {
  strategy *strat;
  progress *pg;
  long charged, budget;
  size_t failed, invalid, resumed; /* invalid (a limit, the geometry, the architecture): data, not a failure */
  int exhausted;
  double best;
  int flops;                 /* the space gives flops: progress in TFLOP/s */
  double gpu_ms, compile_ms; /* sums over this run's records: where the time went */
  double split_ms[4];        /* ... the GPU's, by stage: load, check, timing, isolated */
  size_t ngpu, ncompile, nsplit, raced, raced_early; /* raced_early: against the best so far */
  double *top;          /* the ktop best fully timed medians, ascending: top[ktop-1] is the */
  int ntop, ktop;       /* racing reference (docs/MEASURE.md) */
  const char **modules; /* runtime parameters: each record's options hash (tune_group.ohash) */
  size_t nmodules, capmodules;
  uint8_t *swept; /* the runtime sweep: configurations handed out (or answered) with a sibling */
  size_t combos;  /* ... and how many siblings a proposal has at most */
  int prob;
  long best_cfg; /* the configuration holding best, -1 none */
  /* transfer (shapes.h): the seeds, the shapes they came from, and the stall rule */
  size_t seeds[64];
  int nseeds, nfrom, from[3], stalled;
  long patience, improved_at;
  double mark;
} tune_tally;

/* A record with a time: the best so far, and the ktop best fully timed (raced records never
 * enter: they are known to be slower than the reference they lost to). The exec hears of both
 * when either changes. */
static void note_best(tune_ctx *t, int g, tune_tally *ty, size_t cfg, const record *r) {
  if (!record_timed(r)) return;
  int changed = 0;
  if (isnan(ty->best) || r->t_median < ty->best) ty->best = r->t_median, ty->best_cfg = (long)cfg, changed = 1;
  if (ty->ktop > 0 && !record_raced(r) && (ty->ntop < ty->ktop || r->t_median < ty->top[ty->ntop - 1])) {
    int i = ty->ntop < ty->ktop ? ty->ntop++ : ty->ntop - 1;
    for (; i > 0 && ty->top[i - 1] > r->t_median; i--) ty->top[i] = ty->top[i - 1];
    ty->top[i] = r->t_median;
    changed |= ty->ntop == ty->ktop;
  }
  if (changed)
    t->x->ops->best(t->x, g, ty->prob, ty->best, ty->ktop > 0 && ty->ntop == ty->ktop ? ty->top[ty->ktop - 1] : NAN);
  if (transfer_improves(r->t_median, ty->mark)) ty->mark = r->t_median, ty->improved_at = ty->charged;
}

static int cmp_strp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Where a problem's time went, from its records: the GPU's share of the wall time (below ~90 %
 * the devices waited for compiles; near 100 % the GPU is the bound) and the mean compile time
 * per configuration (compiles run in parallel: --jobs). */
static void time_note(const tune_tally *ty, double wall, int ndev) {
  if (ty->ngpu == 0 || wall <= 0) return;
  double busy = ty->gpu_ms / 1e3 / (wall * (ndev > 0 ? ndev : 1));
  fprintf(stderr, "  time: the GPU%s worked %.0f %% of it, %.1f ms per configuration", ndev > 1 ? "s" : "", 100 * busy,
          ty->gpu_ms / (double)ty->ngpu);
  if (ty->nsplit) {
    double n = (double)ty->nsplit;
    fprintf(stderr, " (load %.2f, check %.2f, timing %.2f, isolated %.2f ms)", ty->split_ms[0] / n, ty->split_ms[1] / n,
            ty->split_ms[2] / n, ty->split_ms[3] / n);
  }
  if (ty->ncompile)
    fprintf(stderr, "; a compile took %.3f s per configuration on average (in parallel processes: --jobs)",
            ty->compile_ms / 1e3 / (double)ty->ncompile);
  fputs("\n", stderr);
  const char *th = ty->ktop == 1 ? "st" : ty->ktop == 2 ? "nd" : ty->ktop == 3 ? "rd" : "th";
  if (ty->raced > ty->raced_early)
    fprintf(stderr,
            "  raced: %zu of %zu timed configurations stopped early, slower than the %d%s best by more than the "
            "margin and their noise (docs/MEASURE.md; --race off times every one in full)\n",
            ty->raced - ty->raced_early, ty->ngpu, ty->ktop, th);
  if (ty->raced_early)
    fprintf(stderr,
            "  raced early: %zu of %zu timed configurations stopped before the %d%s best existed, slower than "
            "--race-early times the best so far by more than their noise (docs/MEASURE.md)\n",
            ty->raced_early, ty->ngpu, ty->ktop, th);
  if (ty->nmodules) { /* configurations that differ only in runtime parameters share a module */
    qsort(ty->modules, ty->nmodules, sizeof *ty->modules, cmp_strp);
    size_t distinct = 0;
    for (size_t i = 0; i < ty->nmodules; i++) distinct += i == 0 || strcmp(ty->modules[i], ty->modules[i - 1]) != 0;
    fprintf(stderr, "  modules: %zu configurations from %zu compiled module%s (runtime parameters share one)\n",
            ty->nmodules, distinct, distinct == 1 ? "" : "s");
  }
}

/* A finished record: to its group's store (fsync'd), to the strategy, to the display. Frees rec. */
static int finish_record(tune_ctx *t, int g, tune_tally *ty, size_t cfg, record *rec, size_t *n_measured, cterr *err) {
  tune_stamp(t, g, ty->prob, rec, cfg);
  note_best(t, g, ty, cfg, rec);
  int rc = store_append(t->grp[g].st, rec, err);
  if (rc == 0) {
    (*n_measured)++;
    ty->charged++;
    strategy_tell_cost(ty->strat, cfg, record_value(rec), record_cost_s(rec));
    if (rec->status == ST_INVALID) ty->invalid++;
    else if (rec->status != ST_OK) ty->failed++;
    if (rec->status == ST_SPACE_ERROR && !t->nspace_errors++) t->first_space_error = xstrdup(rec->message);
    else if (rec->status != ST_SPACE_ERROR) t->nothers++;
    if (!t->nothers && t->nspace_errors >= JOB_SPACE_STOP) t->space_stop = 1; /* the same mistake everywhere */
    if (isfinite(rec->measure_ms)) ty->gpu_ms += rec->measure_ms, ty->ngpu++;
    if (isfinite(rec->m_load_ms) && isfinite(rec->m_check_ms) && isfinite(rec->m_timing_ms) &&
        isfinite(rec->m_isolated_ms)) {
      ty->split_ms[0] += rec->m_load_ms, ty->split_ms[1] += rec->m_check_ms;
      ty->split_ms[2] += rec->m_timing_ms, ty->split_ms[3] += rec->m_isolated_ms;
      ty->nsplit++;
    }
    ty->raced += record_raced(rec);
    ty->raced_early += record_raced_early(rec);
    if (isfinite(rec->compile_ms) && rec->compile_ms > 0) ty->compile_ms += rec->compile_ms, ty->ncompile++;
    if (space_nruntime(t->s) > 0 && rec->status != ST_WORKER_LOST) {
      if (ty->nmodules == ty->capmodules) /* grown by doubling: this runs once a record */
        ty->capmodules = ty->capmodules ? 2 * ty->capmodules : 256,
        ty->modules = xrealloc(ty->modules, ty->capmodules * sizeof *ty->modules);
      ty->modules[ty->nmodules++] = job_ohash(t->grp[g].ohash, cfg);
    }
    if (t->o->verbose)
      progress_log(ty->pg, "%-40s %-13s %s", rec->config, rec_status_name(rec->status),
                   rec->status == ST_OK ? "" : (rec->message ? rec->message : ""));
    progress_step(ty->pg, rec->status == ST_INVALID ? PROGRESS_INVALID : rec->status != ST_OK, rec->t_median,
                  ty->flops ? rec->gflops : rec->gbps, rec->config);
    shapes_book_note(t->book[g], ty->prob, cfg, rec);
  }
  record_free(rec);
  return rc;
}

/* A compile that timed out is tried again (see `cutune run --help`) when this run allows more
 * time than it ran for before it was killed, or, whatever the limit, if it has timed out only
 * once: the machine may have been overloaded. Two timeouts at a limit no larger: skipped. */
static int timeout_retry(const tune_ctx *t, const record *have, size_t ntimeouts) {
  if (isfinite(have->compile_ms) && have->compile_ms > 0 && t->o->compile_timeout * 1e3 > have->compile_ms) return 1;
  return ntimeouts < 2;
}

/* Evaluations group g may still start: the budget less what is charged and in flight. */
static long budget_left(tune_ctx *t, int g, const tune_tally *ty) {
  return ty->budget - ty->charged - t->x->ops->inflight(t->x, g, ty->prob);
}

/* Configuration idx to group g: answered from the store (told to the strategy, not charged)
 * when it was measured before, else submitted. */
static int offer(tune_ctx *t, int g, int prob, tune_tally *ty, size_t idx, cterr *err) {
  size_t ntimeouts = 0;
  const record *have = tune_stored(t, g, prob, idx, &ntimeouts);
  if (have && have->status == ST_COMPILE_TIMEOUT && timeout_retry(t, have, ntimeouts)) have = NULL;
  if (have) { /* measured before: answered from the store, not charged */
    strategy_tell_cost(ty->strat, idx, record_value(have), record_cost_s(have));
    note_best(t, g, ty, idx, have);
    ty->resumed++;
    progress_skip(ty->pg, 1);
    return 0;
  }
  return t->x->ops->submit(t->x, g, prob, idx, err);
}

/* The runtime sweep: with idx, the configurations that differ from it in runtime parameters
 * only, while the budget lasts. They share idx's compile (the pool runs one per key), so each
 * costs the GPU's time alone; their results reach the strategy as told results. */
static int sweep(tune_ctx *t, int g, int prob, tune_tally *ty, size_t idx, cterr *err) {
  size_t sib[TUNE_SWEEP_MAX];
  size_t n = space_runtime_siblings(t->s, idx, sib, TUNE_SWEEP_MAX);
  if (n > TUNE_SWEEP_MAX) n = TUNE_SWEEP_MAX;
  for (size_t j = 0; j < n; j++) {
    if (sib[j] == idx || ty->swept[sib[j]]) continue;
    if (budget_left(t, g, ty) <= 0) return 0;
    ty->swept[sib[j]] = 1;
    if (offer(t, g, prob, ty, sib[j], err) != 0) return -1;
  }
  return 0;
}

/* Hand group g as many new configurations as the exec has room for and the budget allows;
 * those already in the store are told to the strategy and not charged. */
static int propose(tune_ctx *t, int g, int prob, tune_tally *ty, size_t *batch, int batch_max, cterr *err) {
  exec *x = t->x;
  while (!ty->exhausted) {
    if (transfer_stalled(ty->charged, ty->improved_at, ty->patience)) return ty->stalled = 1, 0;
    /* a seeded search: the seeds are measured before the strategy chooses anything */
    if (strategy_seeds_left(ty->strat) == 0 && strategy_seeds_pending(ty->strat) > 0) return 0;
    long left = budget_left(t, g, ty);
    int k = x->ops->room(x, g, prob);
    if (k > batch_max) k = batch_max;
    if (left < k) k = (int)left;
    if (k <= 0) return 0;
    if (ty->swept && ty->combos > 1) k = k / (int)ty->combos > 0 ? k / (int)ty->combos : 1; /* siblings fill the rest */
    int got = strategy_ask(ty->strat, batch, k);
    if (got == 0) ty->exhausted = 1;
    for (int i = 0; i < got; i++) {
      size_t idx = batch[i];
      if (ty->swept && ty->swept[idx]) continue; /* handed out with a sibling: its result is told */
      /* the siblings of an earlier proposal of this batch may have spent the budget: the rest
       * of the batch is dropped (the budget is spent for good: what is in flight is charged) */
      if (budget_left(t, g, ty) <= 0) return 0;
      if (ty->swept) ty->swept[idx] = 1;
      if (offer(t, g, prob, ty, idx, err) != 0) return -1;
      if (ty->swept && sweep(t, g, prob, ty, idx, err) != 0) return -1;
    }
  }
  return 0;
}

/* Transfer: the seeds of group g's search on its problem, the best kernels of the nearest shapes
 * tuned before (shapes.h), measured first; the search then ends once it stalls (--patience
 * evaluations without a 0.5 % gain; by default TUNE_PATIENCE proposals, each with its runtime
 * sweep). note: what the problem line says about it. */
static void find_seeds(tune_ctx *t, int g, tune_tally *ty) {
  int from[64];
  ty->nseeds =
      shapes_book_seeds(t->book[g], ty->prob, t->o->transfer_near, t->o->transfer_per, ty->seeds, 64, from, &ty->nfrom);
  if (ty->nfrom > 3) ty->nfrom = 3;
  memcpy(ty->from, from, sizeof ty->from);
}

static void seed_search(tune_ctx *t, tune_tally *ty, size_t combos, char *note, size_t len) {
  if (!ty->nseeds) return;
  strategy_seed(ty->strat, ty->seeds, (size_t)ty->nseeds, 0);
  /* the stall rule, unless asked for every configuration (--strategy exhaustive without --patience) */
  int every = t->o->strategy && !strcmp(t->o->strategy, "exhaustive");
  ty->patience = t->o->patience >= 0 ? t->o->patience : every ? 0 : TUNE_PATIENCE * (long)combos;
  int k = snprintf(note, len, "; transfer: %d seeds from", ty->nseeds);
  for (int j = 0; j < ty->nfrom && k < (int)len; j++)
    k += snprintf(note + k, len - (size_t)k, "%s %s", j ? "," : "", space_problem_key(t->s, ty->from[j]));
  if (k < (int)len && ty->patience > 0)
    snprintf(note + k, len - (size_t)k, ", measured first; the search ends after %ld evaluations without a 0.5 %% gain",
             ty->patience);
}

/* What group g's search of its problem cost and found, for the shape summary (shapes.h). */
static void cost_of(tune_ctx *t, int g, const tune_tally *ty, double wall) {
  shape_cost *c = &t->cost[g];
  memset(c, 0, sizeof *c);
  c->prob = ty->prob, c->measured = ty->charged, c->answered = (long)ty->resumed;
  c->gpu_s = ty->gpu_ms / 1e3, c->wall_s = wall;
  c->best_ms = isfinite(ty->best) ? ty->best : INFINITY;
  c->figure = NAN;
  cterr e;
  double fl = space_flops(t->s, ty->prob, &e), by = space_bytes(t->s, ty->prob, &e);
  c->flops = isfinite(fl) && fl > 0;
  if (isfinite(c->best_ms))
    c->figure = c->flops ? fl / (c->best_ms * 1e-3) / 1e12 : isfinite(by) ? by / (c->best_ms * 1e-3) / 1e9 : NAN;
  c->seeds = ty->nseeds, c->nfrom = ty->nfrom, c->stalled = ty->stalled;
  memcpy(c->from, ty->from, sizeof c->from);
  for (int k = 0; k < ty->nseeds && ty->best_cfg >= 0; k++) /* a seed, or a runtime sibling of one */
    c->best_seeded |= !strcmp(job_ohash(t->grp[g].ohash, ty->seeds[k]), job_ohash(t->grp[g].ohash, ty->best_cfg));
}

/* How a problem's search starts (tune_problems; tune_prefetch asks the same): the strategy,
 * its budget and time, the note for the problem's line, its options, and the runtime sweep. */
typedef struct tune_plan {
  long budget;
  double time_limit;
  const char *sname, *dflt;
  size_t combos;
  int sweeping;
  strategy_opts sopts;
} tune_plan;

static void plan_search(const space *s, const run_opts *o, int cross, tune_plan *pl, char *note, size_t nlen) {
  size_t count = configset_count(space_configs(s));
  tune_limits(count, o, &pl->budget, &pl->time_limit, &pl->sname, &pl->dflt);
  if (cross) pl->time_limit = 0, pl->sname = "exhaustive", pl->dflt = "";
  /* runtime parameters: each configuration the strategy proposes is measured at every value of
   * them (one compile); the default budget grows by as many, the default time stays */
  pl->combos = space_runtime_combos(s);
  pl->sweeping = !o->no_runtime_sweep && space_nruntime(s) > 0 && pl->combos > 1 && pl->combos <= TUNE_SWEEP_MAX &&
                 strcmp(pl->sname, "exhaustive") != 0; /* a search (exhaustive covers the siblings anyway) */
  if (pl->sweeping && o->budget <= 0 && pl->budget == TUNE_DEFAULT_BUDGET) {
    pl->budget *= (long)pl->combos;
    snprintf(note, nlen,
             " (default for a space this large: --budget %ld --time %d, each proposal measured at "
             "its %zu runtime values: --no-runtime-sweep)",
             pl->budget, TUNE_DEFAULT_TIME, pl->combos);
    pl->dflt = note;
  } else if (pl->sweeping) {
    snprintf(note, nlen, "%s (each proposal measured at its %zu runtime values: --no-runtime-sweep)", pl->dflt,
             pl->combos);
    pl->dflt = note;
  }
  strategy_opts_default(&pl->sopts);
  pl->sopts.budget_hint = pl->budget < (long)count ? pl->budget : (long)count;
  /* a budget in seconds only: --time without --budget, or the default search of a large space,
   * whose evaluation budget its 90 s end first (the matmul space on an H100, cold, 2026-12-08: 31.3
   * configurations/s against 25.6 without, the same best; docs/SEARCH.md) */
  pl->sopts.cost_aware = pl->time_limit > 0 && o->budget <= 0;
}

/* The first configurations (one per module: a proposal's runtime siblings share it) the search
 * of a run's first problem proposes before any result is told (at most max), for the exec to
 * compile while the GPU workers start (exec_prefetch). The strategy is deterministic under its
 * seed whatever the batch size (search/strategy.h), so these are what tune_problems' strategy
 * proposes first. None for a shape set or a run seeded from the store (transfer), for the cross
 * phase alone, or where the device's store holds records already (a resumed run): the loop's
 * proposals depend on the store there. */
typedef struct prefetch_ctx {
  const space *s;
  const run_opts *o;
} prefetch_ctx;

static size_t tune_prefetch(void *ctx, const char *device_name, size_t *out, size_t max) {
  const space *s = ((prefetch_ctx *)ctx)->s;
  const run_opts *o = ((prefetch_ctx *)ctx)->o;
  /* a store with records already (a resumed run): the loop's proposals then skip what it
   * answers and, told those results, a search goes elsewhere than a blind ask would */
  char *spath = store_path_for(o->results_dir, device_name, space_name(s));
  struct stat sb;
  int stored = spath && stat(spath, &sb) == 0 && sb.st_size > 0;
  free(spath);
  if (stored) return 0;
  const char *off = getenv("CUTUNE_PREFETCH"); /* 0: none (to profile the start without it, or a
                                                  test whose racing wants compiles to come late) */
  if (off && !strcmp(off, "0")) return 0;
  int *order = xcalloc((size_t)space_nproblems(s) + 1, sizeof *order);
  int nsel = shapes_order(s, o->problem, 0, order);
  free(order);
  if (nsel < 1 || nsel >= TUNE_SET_MIN || o->transfer > 0 || o->cross == 2) return 0;
  char note[320];
  tune_plan pl;
  plan_search(s, o, 0, &pl, note, sizeof note);
  /* what the loop proposes before any result is told (so the same proposals: later ones of a
   * search depend on the results): the compile window, max modules (the exec's l_room; with the
   * runtime sweep each proposal one module, else one configuration), within the budget */
  long per = pl.sweeping ? (long)pl.combos : 1;
  size_t want = max;
  if (o->budget > 0 && (size_t)((o->budget + per - 1) / per) < want) want = (size_t)((o->budget + per - 1) / per);
  const configset *cs = space_configs(s);
  strategy *st;
  cterr err;
  if (strategy_new(pl.sname, cs, o->seed, &pl.sopts, &st, &err) != 0) return 0;
  size_t n = 0, got[256], sib[TUNE_SWEEP_MAX];
  unsigned char *seen = pl.sweeping ? xcalloc(configset_count(cs) + 1, 1) : NULL;
  while (n < want) {
    int k = strategy_ask(st, got, (int)(want - n < 256 ? want - n : 256));
    if (k <= 0) break;
    for (int i = 0; i < k && n < want; i++) {
      if (seen && seen[got[i]]) continue;
      out[n++] = got[i];
      if (!seen) continue;
      size_t m = space_runtime_siblings(s, got[i], sib, TUNE_SWEEP_MAX);
      for (size_t j = 0; j < m && j < TUNE_SWEEP_MAX; j++) seen[sib[j]] = 1;
      seen[got[i]] = 1;
    }
  }
  free(seen);
  strategy_free(st);
  return n;
}

/* Tune problems probs[0..np-1] (set up together in the exec) on every group at once: each
 * (problem, group) has its own strategy and tally, ty[i * ng + g]. Three stages run together:
 * the strategies propose into the exec (the compile pool works ahead of the devices), the
 * devices measure, and the coordinator records each finished configuration (store append with
 * fsync, strategy, display) while the device that measured it is already on the next. With
 * several problems (the overlap, docs/ARCHITECTURE.md "The tuning loop") each proposes into a
 * window of its own, and what they propose alike compiles once and is measured on each in turn.
 * A problem's wall time runs from the start to its last record. */
static int tune_problems(tune_ctx *t, const int *probs, int np, size_t *n_measured, cterr *err) {
  exec *x = t->x;
  int ng = x->ngroups, rc = -1, stopped = 0, nt = np * ng;
  const configset *cs = space_configs(t->s);
  size_t count = configset_count(cs);
  int cross = 0; /* the cross phase: each group measures its fixed list (t->only), nothing else */
  for (int g = 0; g < x->ngroups; g++) cross |= t->only[g] != NULL;
  char note[320];
  tune_plan pl;
  plan_search(t->s, t->o, cross, &pl, note, sizeof note);
  long budget = pl.budget;
  double time_limit = pl.time_limit;
  const char *sname = pl.sname, *dflt = pl.dflt;
  size_t combos = pl.combos;
  int sweeping = pl.sweeping;
  x->siblings = sweeping ? (int)combos : 1; /* the exec's compile window counts modules */
  cpool_stats cs0;
  int have_cs = x->ops->compile_stats && x->ops->compile_stats(x, &cs0);
  strategy_opts sopts = pl.sopts;
  tune_tally *ty = xcalloc((size_t)nt, sizeof *ty);
  double *ended = xcalloc((size_t)nt, sizeof *ended); /* when each tally's last record came: its wall time */
  int batch_max = 4096;
  size_t *batch = xcalloc((size_t)batch_max, sizeof *batch);
  double t0 = now_seconds();
  /* racing keeps every configuration that could enter the table of the best (and, with energy
   * among the objectives, the energy pass's candidates) fully timed */
  int ktop = t->o->race_margin >= 0 && t->o->race_samples > 0 ? t->o->top : 0;
  if (ktop > 0 && tune_wants_energy(t->s) && t->o->energy_top > ktop) ktop = t->o->energy_top;
  for (int i = 0; i < nt; i++) {
    int g = i % ng, prob = probs[i / ng];
    cterr ferr;
    double fl = space_flops(t->s, prob, &ferr);
    int flops = isfinite(fl) && fl > 0;
    const char *pkey = space_problem_key(t->s, prob);
    ty[i].best = NAN;
    ty[i].budget = cross ? (long)t->nonly[g] : budget;
    ty[i].prob = prob, ty[i].best_cfg = -1, ty[i].mark = INFINITY;
    ty[i].ktop = ktop;
    ty[i].top = ktop > 0 ? xcalloc((size_t)ktop, sizeof *ty[i].top) : NULL;
    if (sweeping) ty[i].swept = xcalloc(count, 1), ty[i].combos = combos;
    char label[256];
    snprintf(label, sizeof label, "%s%s", pkey, t->grp[g].label);
    ty[i].pg = progress_new(stderr, label, (size_t)(budget < (long)count ? budget : (long)count),
                            t->o->quiet ? 0 : t->o->progress_tty);
    progress_set_quiet(ty[i].pg, t->o->quiet);
    ty[i].flops = flops;
    if (flops) progress_show_tflops(ty[i].pg);
    strategy_opts gopts = sopts;
    if (!cross && t->transfer && t->book[g]) find_seeds(t, g, &ty[i]);
    /* seeded: the hybrid's exploitation arms (a walk from the best, crossover) may join at once */
    if (ty[i].nseeds) gopts.hybrid_min = ty[i].nseeds + TRANSFER_HYBRID_MIN;
    if (strategy_new(sname, cs, t->o->seed, &gopts, &ty[i].strat, err) != 0) goto done;
    char seeded[512] = "";
    if (cross) {
      strategy_seed(ty[i].strat, t->only[g], t->nonly[g], 1);
      snprintf(seeded, sizeof seeded, "; cross-measurement: %zu kernels, the best of every shape tuned", t->nonly[g]);
    } else seed_search(t, &ty[i], sweeping ? combos : 1, seeded, sizeof seeded);
    if (!t->o->quiet && !cross)
      fprintf(stderr, "problem %s%s: %zu configurations, strategy %s%s%s\n", pkey, t->grp[g].label, count, sname, dflt,
              seeded);
    else if (!t->o->quiet) fprintf(stderr, "problem %s%s%s\n", pkey, t->grp[g].label, seeded);
  }

  for (;;) {
    int out_of_time = time_limit > 0 && now_seconds() - t0 > time_limit;
    int stop = tune_interrupted || out_of_time || t->space_stop;
    if (stop && !stopped) x->ops->stop(x), stopped = 1;
    int inflight = 0, more = 0;
    for (int i = 0; i < nt; i++) {
      int g = i % ng, prob = probs[i / ng];
      if (!stop && ty[i].charged < ty[i].budget && propose(t, g, prob, &ty[i], batch, batch_max, err) != 0) goto done;
      int f = x->ops->inflight(x, g, prob);
      int left = !stop && !ty[i].exhausted && !ty[i].stalled && ty[i].charged + f < ty[i].budget;
      if (!f && !left && !ended[i]) ended[i] = now_seconds();
      inflight += f, more |= left;
    }
    if (inflight == 0 && !more) break;
    exec_done d;
    int w = x->ops->wait(x, &d, 200, err);
    if (w < 0) goto done;
    int i = 0;
    while (w == 1 && i < np && probs[i] != d.prob) i++;
    if (w == 1 && i == np) { /* not a problem of this call: cannot happen, but never unrecorded silently */
      record_free(&d.rec);
      cterr_set(err, "a record for problem %d, which is not being tuned", d.prob);
      goto done;
    }
    if (w == 1 && *n_measured < 3) trace_mark("record %zu (problem %d)", *n_measured + 1, d.prob);
    if (w == 1 && finish_record(t, d.group, &ty[i * ng + d.group], d.cfg, &d.rec, n_measured, err) != 0) goto done;
  }
  trace_mark("problems done: %zu records so far", *n_measured);
  rc = 0;
done:
  if (rc != 0) x->ops->drain(x); /* an error elsewhere: the next problem starts clean */
  double wall_all = now_seconds() - t0, gpu_s[EXEC_MAX_GROUPS] = {0};
  for (int i = 0; i < nt; i++) {
    int g = i % ng;
    const char *pkey = space_problem_key(t->s, probs[i / ng]);
    if (!ty[i].pg) continue;
    progress_finish(ty[i].pg);
    progress_free(ty[i].pg);
    strategy_free(ty[i].strat);
    double wall = (ended[i] ? ended[i] : now_seconds()) - t0;
    gpu_s[g] += ty[i].gpu_ms / 1e3;
    if (rc == 0) cost_of(t, g, &ty[i], wall);
    if (rc == 0 && !t->o->quiet) {
      char inv[64] = "";
      if (ty[i].invalid) snprintf(inv, sizeof inv, ", %zu invalid", ty[i].invalid);
      fprintf(stderr, "problem %s%s: %ld measured (%zu failed%s), %zu answered from the store, %.1f s%s%s\n", pkey,
              t->grp[g].label, ty[i].charged, ty[i].failed, inv, ty[i].resumed, wall,
              np > 1 ? " (side by side: from the start to its last record)" : "",
              ty[i].stalled ? " (the seeded search stalled: --patience)" : "");
      time_note(&ty[i], wall, x->group[g].ndevices);
    }
    free(ty[i].modules);
    free(ty[i].swept);
    free(ty[i].top);
  }
  for (int g = 0; g < ng && np > 1 && rc == 0 && !t->o->quiet && wall_all > 0; g++)
    fprintf(stderr, "overlap%s: %d problems measured side by side in %.1f s; the GPU%s worked %.0f %% of it\n",
            t->grp[g].label, np, wall_all, x->group[g].ndevices > 1 ? "s" : "",
            100 * gpu_s[g] / (wall_all * (x->group[g].ndevices > 0 ? x->group[g].ndevices : 1)));
  cpool_stats cs1;
  if (have_cs && rc == 0 && !t->o->quiet && x->ops->compile_stats(x, &cs1) && cs1.programs > cs0.programs &&
      cs1.workers > 0 && wall_all > 0)
    fprintf(stderr,
            "compile pool: %ld NVRTC programs; its %d workers busy %.0f %% of the %.1f s, up to %d compiling at "
            "once\n",
            cs1.programs - cs0.programs, cs1.workers, 100 * (cs1.busy_s - cs0.busy_s) / (cs1.workers * wall_all),
            wall_all, cs1.busy_max);
  free(ty);
  free(ended);
  free(batch);
  return rc;
}

/* The cross-measurement of a shape set: per group, the best --cross-top kernels of every shape
 * (shapes.h), each measured on every shape (those in the store are answered from it). row[g]:
 * what it cost, ncand[g]: how many kernels. */
static int tune_cross_phase(tune_ctx *t, const int *order, int n, shape_cost *row, int *ncand, size_t *measured,
                            cterr *err) {
  int ng = t->x->ngroups, any = 0, rc = -1;
  size_t *cand[EXEC_MAX_GROUPS] = {0};
  for (int g = 0; g < ng; g++) {
    cand[g] = xcalloc((size_t)t->o->cross_max + 1, sizeof **cand);
    ncand[g] = shapes_cross_candidates(t->book[g], order, n, t->o->cross_top, cand[g], t->o->cross_max);
    memset(&row[g], 0, sizeof row[g]);
    row[g].best_ms = INFINITY, row[g].figure = NAN, row[g].prob = -1;
    if (ncand[g]) t->only[g] = cand[g], t->nonly[g] = (size_t)ncand[g], any = 1;
    if (!t->o->quiet)
      fprintf(stderr,
              "cross-measurement%s: the best %d kernels of each of the %d shapes, %d distinct, on every shape\n",
              t->grp[g].label, t->o->cross_top, n, ncand[g]);
  }
  for (int i = 0; i < n && any && !tune_interrupted; i++) {
    if (tune_setup_problems(t, &order[i], 1, 1, err) != 0 || tune_problems(t, &order[i], 1, measured, err) != 0)
      goto done;
    for (int g = 0; g < ng; g++) {
      row[g].measured += t->cost[g].measured, row[g].answered += t->cost[g].answered;
      row[g].gpu_s += t->cost[g].gpu_s, row[g].wall_s += t->cost[g].wall_s;
    }
  }
  rc = 0;
done:
  for (int g = 0; g < ng; g++) free(cand[g]), t->only[g] = NULL, t->nonly[g] = 0;
  return rc;
}

/* How many of the selected problems (order[0..n-1], not a shape set) are tuned side by side:
 * all of them (EXEC_MAX_PROBLEMS at most) unless --no-overlap, a time limit (it is per problem:
 * one after the other, each gets it whole), or their buffers together would not fit in
 * EXEC_OVERLAP_MEM of a group's device memory; 1 means one after the other. Says why not,
 * where it matters. */
static int tune_overlap_width(tune_ctx *t, const int *order, int n) {
  long budget;
  double time_limit;
  const char *sname, *note;
  tune_limits(configset_count(space_configs(t->s)), t->o, &budget, &time_limit, &sname, &note);
  int w = n < EXEC_MAX_PROBLEMS ? n : EXEC_MAX_PROBLEMS;
  if (w < 2 || t->o->no_overlap) return 1;
  if (time_limit > 0) {
    if (!t->o->quiet)
      fprintf(stderr, "%d problems, one after the other: the time limit of %g s is per problem\n", n, time_limit);
    return 1;
  }
  for (int g = 0; g < t->x->ngroups; g++) {
    double need;
    if (!exec_problems_fit(t->s, order, w, t->x->group[g].info.mem_bytes, &need)) {
      if (!t->o->quiet)
        fprintf(stderr,
                "%d problems, one after the other: together their buffers take %.1f GiB, more than %.0f %% of "
                "the %.1f GiB of %s\n",
                n, need / 1073741824.0, 100 * EXEC_OVERLAP_MEM, (double)t->x->group[g].info.mem_bytes / 1073741824.0,
                t->x->group[g].info.name);
      return 1;
    }
  }
  if (!t->o->quiet)
    fprintf(stderr,
            "%d problems side by side: each configuration compiled once and measured on every one of them "
            "(--no-overlap: one after the other)\n",
            w);
  return w;
}

int run_tune(space *s, const run_opts *o, const char *self_exe, const int *ordinals, int ndevices, run_outcome *out,
             cterr *err) {
  tune_ctx t = {.s = s, .o = o};
  int *order = xcalloc((size_t)space_nproblems(s) + 1, sizeof *order), ncand[EXEC_MAX_GROUPS] = {0};
  shape_cost *rows[EXEC_MAX_GROUPS], crossrow[EXEC_MAX_GROUPS];
  for (int g = 0; g < EXEC_MAX_GROUPS; g++) rows[g] = xcalloc((size_t)space_nproblems(s) + 1, sizeof **rows);
  dbuf warn;
  dbuf_init(&warn);
  compile_source src;
  compile_source_init(&src);
  int rc = -1;
  size_t measured = 0;
  double t0 = now_seconds();
  struct sigaction sa = {0}, old_int, old_term;
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  trace_mark("run: %s", space_path(s));
  if (job_load_source(s, &src, err) != 0) goto done;
  t.src = &src;
  /* the template and every file it includes: a header edit re-measures */
  job_source_hash(&src, t.template_hash);
  int served = 0;
  prefetch_ctx pctx = {s, o};
  exec_prefetch pre = {tune_prefetch, &pctx};
  if (exec_open(s, o, self_exe, ordinals, ndevices, t.src, &pre, &t.x, &served, err) != 0) {
    out->no_device = ndevices > 0 && gpu_error_is_no_device(err);
    goto done;
  }
  if (served) { /* this process was a rank serving the coordinator: it has nothing to report */
    rc = 0;
    goto done;
  }
  /* each problem's check: a store's record answers only under the check it was measured under */
  t.check_hash = xcalloc((size_t)space_nproblems(s) + 1, sizeof *t.check_hash);
  if (job_check_hashes(s, t.src, t.check_hash, err) != 0) goto done;
  t.lhash = job_lhashes_new(s); /* and how each configuration is launched: a record launched otherwise re-measures */

  for (int g = 0; g < t.x->ngroups; g++) {
    tune_group *tg = &t.grp[g];
    const exec_group *eg = &t.x->group[g];
    tg->arch = o->arch ? o->arch : eg->info.arch;
    if (t.x->ngroups > 1) snprintf(tg->label, sizeof tg->label, " on %s", eg->info.name);
    tg->spath = store_path_for(o->results_dir, eg->info.name, space_name(s));
    dbuf_reset(&warn);
    if (store_open(tg->spath, &tg->st, &warn, err) != 0) goto done;
    if (warn.len) fprintf(stderr, "%s", warn.data);
    if (!(tg->ohash = job_ohashes_new(s, t.src, tg->arch, err))) goto done;
    if (!o->quiet) {
      char count[32] = "";
      if (eg->ndevices > 1) snprintf(count, sizeof count, " x%d", eg->ndevices);
      fprintf(stderr,
              "%s%s (%s, %d SMs, %.0f MiB L2): device-to-device copy %.0f GB/s\n"
              "%s: %zu valid configurations of %.0f; records in %s\n",
              eg->info.name, count, eg->info.arch, eg->info.sms, eg->info.l2_bytes / 1048576.0, eg->info.copy_gbps,
              space_path(s), configset_count(space_configs(s)), configset_raw_size(space_configs(s)), tg->spath);
    }
  }

  int nsel = shapes_order(s, o->problem, 0, order), set = nsel >= TUNE_SET_MIN;
  t.transfer = o->transfer > 0 || (o->transfer == 0 && set);
  int cross = nsel > 1 && (o->cross > 0 || (o->cross == 0 && set)), many = set || t.transfer || cross;
  if (t.transfer && !o->listed) nsel = shapes_order(s, o->problem, 1, order);
  for (int g = 0; g < t.x->ngroups && (t.transfer || cross); g++)
    t.book[g] = shapes_book_new(s, t.grp[g].st, t.template_hash, t.grp[g].ohash);
  if (many && !o->quiet)
    fprintf(
        stderr, "%d problems (shapes), in %s order%s%s\n", nsel, t.transfer && !o->listed ? "nearest-first" : "listed",
        t.transfer ? "; each search seeded with the best kernels of the nearest shapes tuned before it (transfer)" : "",
        cross ? "; then the cross-measurement" : "");
  int nrows = 0, step = many ? 1 : tune_overlap_width(&t, order, nsel);
  for (int i = 0; i < nsel && !tune_interrupted && !t.space_stop && o->cross != 2; i += step) {
    int n = nsel - i < step ? nsel - i : step; /* problems order[i..i+n) side by side */
    if (tune_setup_problems(&t, &order[i], n, 0, err) != 0 || tune_problems(&t, &order[i], n, &measured, err) != 0)
      goto done;
    for (int k = i; k < i + n; k++) {
      int prob = order[k];
      for (int g = 0; g < t.x->ngroups; g++)
        if (tune_wants_energy(s) && !tune_interrupted && !t.space_stop &&
            tune_energy_pass(&t, g, prob, &measured, err) != 0)
          goto done;
      for (int g = 0; g < t.x->ngroups; g++) {
        if (!set && !cross) tune_report_problem(&t, g, prob, out, 1);
        rows[g][nrows] = t.cost[g];
      }
      nrows++;
    }
  }
  if (cross && !tune_interrupted && !t.space_stop &&
      tune_cross_phase(&t, order, nsel, crossrow, ncand, &measured, err) != 0)
    goto done;
  for (int i = 0; i < nsel && (set || cross); i++) /* after the cross phase; a set's tables: -v */
    for (int g = 0; g < t.x->ngroups; g++) tune_report_problem(&t, g, order[i], out, !set || o->verbose);
  for (int g = 0; g < t.x->ngroups && many; g++)
    shapes_summary(stdout, s, t.grp[g].label, rows[g], nrows, cross && ncand[g] ? &crossrow[g] : NULL, ncand[g], nsel);
  double dt = now_seconds() - t0;
  printf("\n%zu configurations measured in %.1f s (%.1f per second end to end); records in ", measured, dt,
         dt > 0 ? measured / dt : 0.0);
  for (int g = 0; g < t.x->ngroups; g++) printf("%s%s", g ? ", " : "", t.grp[g].spath);
  printf("\n");
  if (tune_interrupted)
    printf("interrupted: every finished measurement is in the store; run the same command to resume\n");
  report_space_errors(stdout, t.nspace_errors, t.first_space_error, t.space_stop ? JOB_SPACE_STOP : 0);
  out->interrupted = tune_interrupted != 0;
  rc = 0;
done:
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  exec_free(t.x);
  for (int g = 0; g < EXEC_MAX_GROUPS; g++) {
    store_close(t.grp[g].st);
    free(t.grp[g].spath), job_ohashes_free(t.grp[g].ohash), free(rows[g]);
    shapes_book_free(t.book[g]);
  }
  free(order), free(t.check_hash), free(t.first_space_error);
  job_lhashes_free(t.lhash);
  compile_source_free(&src);
  dbuf_free(&warn);
  return rc;
}
