/* replay_main: `cutune run --replay FILE [SPACE.lua] ...` — one strategy on recorded
 * measurements (see score.h for the entry point). The lead's run command hands its argv here
 * when --replay is present. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "replay.h"
#include "replay_shapes.h"
#include "score.h"
#include "space/space.h"
#include "strategy.h"

/* the Lua space unit is optional for replay: referenced weakly so search builds without it */

static const char replay_usage[] =
    "usage: cutune run --replay FILE [SPACE.lua] [options]\n"
    "\n"
    "Run a search strategy on recorded measurements instead of a GPU: every evaluation is\n"
    "answered from FILE — a Kernel Tuner cache file (.json or .json.gz) or a cutune results\n"
    "file (.jsonl). Without SPACE.lua the space (parameters, valid configurations, failures)\n"
    "comes from the file; with it, the space's configurations are looked up in the file by\n"
    "parameter names and values, and those the file lacks count as failed.\n"
    "\n"
    "options:\n"
    "  --strategy NAME   exhaustive, random, ils, ga, anneal, bo, bandit, hybrid (default:\n"
    "                    exhaustive when the budget covers the space, else hybrid)\n"
    "  --budget N        at most N evaluations (failed ones count) (default 200)\n"
    "  --time S          at most S seconds of recorded cost (compile + benchmark time)\n"
    "  --seed S          seed of the strategy and of noisy draws (default 1)\n"
    "  --noisy           each evaluation draws one recorded repetition instead of the mean\n"
    "  --problem P       which problem of a cutune results file (default: the first)\n"
    "  --top K           how many of the best configurations found to list (default 5)\n"
    "\n"
    "Shape sets (--shapes, with SPACE.lua): every selected problem of the space is replayed, shape\n"
    "by shape in the order cutune run tunes them (the first, then the nearest to those before),\n"
    "once from a cold start and once with transfer: the best configurations of the nearest\n"
    "shapes replayed before are measured first, then the strategy searches until --patience\n"
    "evaluations in a row gain less than 0.5 %. Per shape and in total: evaluations spent and\n"
    "those needed to come within --within of the shape's recorded optimum (docs/SEARCH.md).\n"
    "  --shapes          replay the space's shape set (--problem selects: 0-9, 0,3,5, a key, all)\n"
    "  --near K          seeds from the K nearest shapes replayed before (default 3)\n"
    "  --per P           ... the best P of each (default 3)\n"
    "  --patience N      a seeded search stops after N evaluations without a 0.5 % gain (default 40)\n"
    "  --within X        'close enough' to the optimum (default 0.02)\n"
    "  --listed          in the listed order, not nearest-first\n"
    "  --no-cold         only the transfer run\n";

typedef struct {
  replay_eval ev;
  size_t *seen;
  double *obs;
  size_t nseen, cap;
} tracking;

static int tracking_eval(void *ctx, size_t idx, double *value, double *cost, rec_status *st, cterr *err) {
  tracking *t = ctx;
  if (replay_evaluate(&t->ev, idx, value, cost, st, err) < 0) return -1;
  if (t->nseen == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 256;
    t->seen = xrealloc(t->seen, t->cap * sizeof(size_t));
    t->obs = xrealloc(t->obs, t->cap * sizeof(double));
  }
  t->seen[t->nseen] = idx;
  t->obs[t->nseen++] = *st == ST_OK ? *value : INFINITY;
  return 0;
}

static int select_ctx(void *ctx, int prob) {
  const space *sp = ((const void **)ctx)[0];
  cterr e;
  return space_select_match(sp, ((const char **)ctx)[1], prob, &e) == 1;
}

/* --shapes: the space's shape set, cold and with transfer (replay_shapes.c). */
static int replay_shapes_cmd(const char *file, const char *space_file, const char *problem, const char *strat,
                             long budget, uint64_t seed, long patience, int near, int per, double within, int cold,
                             int listed) {
  cterr err = {0};
  if (!space_file) {
    fprintf(stderr, "cutune run: --shapes needs the space file (cutune run --replay STORE SPACE.lua --shapes)\n");
    return 2;
  }
  if (budget <= 0) {
    fprintf(stderr, "cutune run: --shapes counts evaluations: give --budget N (per shape), not --time\n");
    return 2;
  }
  space *sp = NULL;
  int n = 0, rc = 1;
  if (space_load(space_file, &sp, &err) < 0) {
    fprintf(stderr, "cutune run: %s\n", err.msg);
    return 1;
  }
  if (space_select_check(sp, problem, &n, &err) < 0) {
    fprintf(stderr, "cutune run: %s\n", err.msg);
    space_free(sp);
    return 2;
  }
  const void *ctx[2] = {sp, problem};
  replay_shapes_opts o = {.strategy = strat,
                          .budget = budget,
                          .seed = seed,
                          .patience = patience,
                          .near = near,
                          .per = per,
                          .within = within,
                          .cold = cold,
                          .listed = listed,
                          .selected = problem ? select_ctx : NULL,
                          .sel_ctx = (void *)ctx};
  if (search_replay_shapes(file, sp, &o, &err) < 0) fprintf(stderr, "cutune run: %s\n", err.msg);
  else rc = 0;
  space_free(sp);
  return rc;
}

int search_replay_main(int argc, char **argv) {
  const char *file = NULL, *space_file = NULL, *strat = NULL, *problem = NULL;
  long budget = -1, seed = 1, top = 5;
  double seconds = -1;
  int noisy = 0, shapes = 0, cold = 1, listed = 0;
  long near = 3, per = 3, patience = 40;
  double within = 0.02;
  cterr err = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int need = !strcmp(a, "--replay") || !strcmp(a, "--strategy") || !strcmp(a, "--budget") || !strcmp(a, "--time") ||
               !strcmp(a, "--seed") || !strcmp(a, "--problem") || !strcmp(a, "--top") || !strcmp(a, "--near") ||
               !strcmp(a, "--per") || !strcmp(a, "--patience") || !strcmp(a, "--within");
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(replay_usage, stdout);
      return 0;
    }
    if (need && !v) {
      fprintf(stderr, "cutune run: option %s needs a value (see 'cutune run --replay FILE --help')\n", a);
      return 2;
    }
    if (need) i++;
    int bad = 0;
    if (!strcmp(a, "--replay")) file = v;
    else if (!strcmp(a, "--strategy")) strat = v;
    else if (!strcmp(a, "--problem")) problem = v;
    else if (!strcmp(a, "--budget")) bad = parse_long(v, &budget, "--budget", &err) < 0 || budget < 1;
    else if (!strcmp(a, "--time")) bad = parse_double(v, &seconds, "--time", &err) < 0 || !(seconds > 0);
    else if (!strcmp(a, "--seed")) bad = parse_long(v, &seed, "--seed", &err) < 0;
    else if (!strcmp(a, "--top")) bad = parse_long(v, &top, "--top", &err) < 0 || top < 0;
    else if (!strcmp(a, "--noisy")) noisy = 1;
    else if (!strcmp(a, "--shapes")) shapes = 1;
    else if (!strcmp(a, "--no-cold")) cold = 0;
    else if (!strcmp(a, "--listed")) listed = 1;
    else if (!strcmp(a, "--near")) bad = parse_long(v, &near, "--near", &err) < 0 || near < 1 || near > 64;
    else if (!strcmp(a, "--per")) bad = parse_long(v, &per, "--per", &err) < 0 || per < 1 || per > 8;
    else if (!strcmp(a, "--patience")) bad = parse_long(v, &patience, "--patience", &err) < 0 || patience < 0;
    else if (!strcmp(a, "--within")) bad = parse_double(v, &within, "--within", &err) < 0 || !(within >= 0);
    else if (a[0] != '-' && !space_file) space_file = a;
    else {
      fprintf(stderr, "cutune run: unknown option or extra argument '%s' with --replay (see --help)\n", a);
      return 2;
    }
    if (bad) {
      if (!err.msg[0]) snprintf(err.msg, sizeof err.msg, "%s must be positive (got '%s')", a, v);
      fprintf(stderr, "cutune run: %s\n", err.msg);
      return 2;
    }
  }
  if (!file) {
    fprintf(stderr, "cutune run: --replay FILE is required here (see --help)\n");
    return 2;
  }
  if (budget < 0 && seconds < 0) budget = 200;
  if (shapes)
    return replay_shapes_cmd(file, space_file, problem, strat, budget, (uint64_t)seed, patience, (int)near, (int)per,
                             within, cold, listed);
  space *sp = NULL;
  replay *r = NULL;
  int rc = 1;
  if (space_file) {
    if (space_load(space_file, &sp, &err) < 0 || replay_load_for(file, problem, space_configs(sp), &r, &err) < 0) {
      fprintf(stderr, "cutune run: %s\n", err.msg);
      if (sp) space_free(sp);
      return 1;
    }
  } else if (replay_load(file, problem, &r, &err) < 0) {
    fprintf(stderr, "cutune run: %s\n", err.msg);
    return 1;
  }
  fflush(stdout);
  for (const char *w = replay_warnings(r); *w;) { /* one write per line: see progress.h on shared logs */
    size_t len = strcspn(w, "\n");
    fprintf(stderr, "cutune run: warning: %.*s\n", (int)len, w);
    w += len + (w[len] ? 1 : 0);
  }
  const configset *cs = replay_configs(r);
  size_t n = replay_count(r);
  if (!strat) strat = strategy_default_name(n, seconds > 0 ? -1 : budget);
  long opt = replay_optimum(r);
  printf("replay: %s (%s%s%s): %zu configurations, %zu failed\n", file, replay_title(r),
         *replay_problem(r) ? ", problem " : "", replay_problem(r), n, replay_nfailed(r));
  if (opt >= 0) {
    char *key = configset_row_key(cs, configset_row(cs, (size_t)opt));
    printf("recorded optimum: %.4g ms  %s\n", replay_value(r, (size_t)opt), key);
    free(key);
  } else {
    printf("recorded optimum: none (no configuration succeeded)\n");
  }
  strategy *s = NULL;
  strategy_opts o;
  strategy_opts_default(&o);
  if (budget > 0) o.budget_hint = budget;
  tracking t = {.ev = {.r = r, .noisy = noisy}};
  rng_seed(&t.ev.rng, (uint64_t)seed ^ 0x5eed5eedULL);
  search_outcome out = {0};
  search_budget b = {.evals = budget, .seconds = seconds};
  if (strategy_new(strat, cs, (uint64_t)seed, &o, &s, &err) < 0 ||
      search_run(s, &b, tracking_eval, NULL, &t, &out, &err) < 0) {
    fprintf(stderr, "cutune run: %s\n", err.msg);
    goto done;
  }
  printf("strategy %s, seed %ld, budget %s: spent %ld evaluations (%ld failed), %.1f s of recorded cost%s\n", strat,
         seed, budget > 0 ? "in evaluations" : "in seconds", out.evals, out.failed, out.seconds,
         noisy ? ", noisy" : "");
  dbuf sum;
  dbuf_init(&sum);
  strategy_summary(s, &sum);
  if (sum.len) printf("  %s\n", sum.data);
  dbuf_free(&sum);
  printf("best-so-far (mean time of the configuration held best; %% of the optimum's speed):\n ");
  static const long marks[] = {10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
  for (size_t k = 0; k < sizeof marks / sizeof *marks; k++) {
    if (marks[k] > out.ncurve) break;
    long idx = out.curve_idx[marks[k] - 1];
    if (idx < 0) printf("  @%ld: none", marks[k]);
    else
      printf("  @%ld: %.4g ms (%.1f%%)", marks[k], replay_value(r, (size_t)idx),
             100 * replay_value(r, (size_t)opt) / replay_value(r, (size_t)idx));
  }
  if (out.ncurve && out.curve_idx[out.ncurve - 1] >= 0) {
    long idx = out.curve_idx[out.ncurve - 1];
    printf("  final @%ld: %.4g ms (%.1f%%)", out.ncurve, replay_value(r, (size_t)idx),
           100 * replay_value(r, (size_t)opt) / replay_value(r, (size_t)idx));
  }
  printf("\nbest configurations found (observed ms; recorded mean ms):\n");
  for (long k = 0; k < top && k < (long)t.nseen; k++) { /* selection of the k-th best observed */
    size_t m = (size_t)k;
    for (size_t q = (size_t)k + 1; q < t.nseen; q++)
      if (t.obs[q] < t.obs[m]) m = q;
    size_t ti = t.seen[k];
    double to = t.obs[k];
    t.seen[k] = t.seen[m], t.obs[k] = t.obs[m], t.seen[m] = ti, t.obs[m] = to;
    if (!isfinite(t.obs[k])) break;
    char *key = configset_row_key(cs, configset_row(cs, t.seen[k]));
    printf("  %ld. %.4g  %.4g  %s%s\n", k + 1, t.obs[k], replay_value(r, t.seen[k]), key,
           (long)t.seen[k] == opt ? "  (the optimum)" : "");
    free(key);
  }
  rc = 0;
done:
  search_outcome_free(&out);
  free(t.seen), free(t.obs);
  strategy_free(s);
  replay_free(r);
  if (sp) space_free(sp);
  return rc;
}
