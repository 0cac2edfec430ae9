/* score_main: the `cutune score` command — options, worker processes, table and SVG plot. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "score.h"
#include "score_impl.h"

static const char score_usage[] =
    "usage: cutune score [options] FILE...\n"
    "\n"
    "Compare search strategies on recorded tuning data (Kernel Tuner cache files, .json or\n"
    ".json.gz, or cutune results .jsonl), following Willemsen et al., \"A methodology for\n"
    "comparing optimization algorithms for auto-tuning\" (FGCS 2024).\n"
    "\n"
    "For every file (one space) and strategy, the strategy runs --repeats times with seeds\n"
    "derived from --seed, each for --budget-max evaluations answered from the file (a failed\n"
    "configuration counts as an evaluation that yields nothing). At every budget b the mean\n"
    "best-so-far time f(b) over the repeats is scored\n"
    "    score(b) = (E_b - f(b)) / (E_b - optimum)\n"
    "where E_b is the exact expected best-so-far of random search without replacement after b\n"
    "draws (closed form over the sorted times of all configurations; before any success the\n"
    "best-so-far counts as the worst valid time). 0 = no better than random search, 1 = the\n"
    "optimum, negative = worse than random. Scores are averaged over files.\n"
    "\n"
    "Output: a table per strategy — mean score over budgets --budget-min..--budget-max, the\n"
    "score at 20, 50, 100 and 200 evaluations, and the fraction of the optimum reached\n"
    "(optimum time / best time found, mean over repeats and files) at 25, 50, 100, 200\n"
    "evaluations — then the mean score per file, and with --svg FILE a plot of score against budget.\n"
    "\n"
    "options:\n"
    "  --strategies a,b,c   strategies to compare (default random,ils,ga,anneal,bo,bandit,hybrid;\n"
    "                       all: exhaustive,random,ils,ga,anneal,bo,bandit,hybrid; hybrid is\n"
    "                       the default of cutune run)\n"
    "  --repeats N          seeded repeats per strategy and file (default 25)\n"
    "  --budget-max N       largest budget in evaluations (default 200, at most 2000)\n"
    "  --budget-min N       smallest budget in the mean score (default 10)\n"
    "  --seed S             base seed (default 1); repeat r of every strategy uses seed S*1000003+r\n"
    "  --noisy              each evaluation draws one recorded repetition instead of the mean;\n"
    "                       the configuration a strategy holds best is scored by its mean\n"
    "  --batch N            ask N configurations, evaluate all N, then tell all N (what N GPUs\n"
    "                       in lockstep see; default 1 = one at a time)\n"
    "  --cost evals|time    what a budget counts (default evals). time: every evaluation costs\n"
    "                       its recorded compile + measuring time (Kernel Tuner: compile_time +\n"
    "                       benchmark_time; cutune: compile_ms + measure_ms, or median x samples) and budget b\n"
    "                       means b times the space's mean cost per configuration, in seconds:\n"
    "                       what random search spends on average in b draws, so the baseline\n"
    "                       stays E_b. The per-file table gives the budget in seconds.\n"
    "  --cost-aware on|off  the strategies are told each evaluation's cost; on: BO (also inside\n"
    "                       bandit and hybrid) picks by expected improvement per predicted\n"
    "                       second (default: on with --cost time, off otherwise)\n"
    "  --profile            also print the strategies' own CPU time per proposal (ask + tell)\n"
    "                       around 200 and 2000 evaluations (use --budget-max 2000)\n"
    "  --jobs N             worker processes over files (default 2)\n"
    "  --svg FILE           also plot the mean score per budget there (default: no plot)\n"
    "  strategy settings (same for every file; defaults in parentheses):\n"
    "  --arms a,b,c         bandit arms (ga,bo)\n"
    "  --bandit-c X         bandit exploration weight (0.05)\n"
    "  --bandit-window N    bandit credit window (50)\n"
    "  --ga-pop N           GA population (10)\n"
    "  --bo-init N          BO initial design size (10)\n"
    "  --bo-candidates N    BO random candidate pool (1500)\n"
    "  --bo-xi X            BO expected-improvement exploration offset (0.01)\n"
    "  --bo-design N        BO initial design: each point the most distant of N random ones (20)\n"
    "  --hybrid-arm a,b     hybrid: exploitation arms beside bo, taking turns (ils,ga)\n"
    "  --hybrid-patience N  hybrid: results without improvement before they join (5)\n"
    "  --hybrid-min N       hybrid: evaluations before they may join (20)\n"
    "  --hybrid-ramp X      hybrid: their share, 0.5 at the stall, grows by X per patience further\n"
    "                       results without improvement (0.5)\n"
    "  --hybrid-max X       hybrid: their share at most (0.8)\n"
    "  --hybrid-credit on|off  hybrid: also give them the share their gain per proposal earns\n"
    "                       against BO's (decayed log-time improvement of the best; on)\n"
    "  --hybrid-credit-min X, --hybrid-credit-max X  hybrid: bounds of that share (0.1, 0.5)\n"
    "  --hybrid-decay X     hybrid: credit decay per told result (0.97)\n"
    "  --csv FILE           also write the mean score per budget: budget,strategy...,one row per b\n";

typedef struct {
  int file;
  int ok;
  char msg[CTERR_MAX];
} file_header;

static void worker(int fd, int job, int jobs, char **files, int nfiles, const score_cfg *cfg) {
  score_result *res = xcalloc((size_t)cfg->nstrat, sizeof *res);
  for (int f = job; f < nfiles; f += jobs) {
    file_header h = {.file = f, .ok = 1};
    cterr err = {0};
    if (score_file(files[f], cfg, res, &err) < 0) h.ok = 0, snprintf(h.msg, sizeof h.msg, "%s", err.msg);
    if (fd_write_all(fd, &h, sizeof h) < 0) break;
    if (h.ok && fd_write_all(fd, res, (size_t)cfg->nstrat * sizeof *res) < 0) break;
  }
  free(res);
}

static const char *const colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

static int write_svg(const char *path, const score_cfg *cfg, double (*curve)[SCORE_BMAX + 1], int nfiles, cterr *err) {
  const double W = 820, H = 500, L = 70, R = 170, T = 40, Bm = 60;
  int b0 = cfg->budget_min, b1 = cfg->budget_max;
  double ymin = 0, ymax = 1;
  for (int s = 0; s < cfg->nstrat; s++)
    for (int b = b0; b <= b1; b++)
      if (isfinite(curve[s][b])) ymin = fmin(ymin, curve[s][b]);
  ymin = floor(ymin * 10) / 10;
  dbuf o;
  dbuf_init(&o);
#define X(b) (L + ((double)(b)-b0) / (double)(b1 > b0 ? b1 - b0 : 1) * (W - L - R))
#define Y(v) (T + (ymax - (v)) / (ymax - ymin) * (H - T - Bm))
  dbuf_printf(&o,
              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\" "
              "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
              W, H);
  dbuf_printf(
      &o,
      "<text x=\"%g\" y=\"22\" font-size=\"15\">Search strategies: score vs budget (%d file%s, %d repeats%s)</text>\n",
      L, nfiles, nfiles == 1 ? "" : "s", cfg->repeats, cfg->noisy ? ", noisy" : "");
  for (double v = ymin; v <= ymax + 1e-9; v += 0.1) {
    dbuf_printf(&o, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"%s\"/>\n", L, Y(v), W - R, Y(v),
                fabs(v) < 1e-9 ? "#000" : "#ddd");
    dbuf_printf(&o, "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n", L - 6, Y(v) + 4, v);
  }
  int step = (b1 - b0) > 100 ? 25 : 10;
  for (int b = ((b0 + step - 1) / step) * step; b <= b1; b += step) {
    dbuf_printf(&o, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#eee\"/>\n", X(b), T, X(b), H - Bm);
    dbuf_printf(&o, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%d</text>\n", X(b), H - Bm + 16, b);
  }
  dbuf_printf(&o, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#000\"/>\n", L, T, L, H - Bm);
  dbuf_printf(&o, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#000\"/>\n", L, H - Bm, W - R, H - Bm);
  dbuf_printf(&o, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">budget (evaluations)</text>\n", (L + W - R) / 2,
              H - 18);
  dbuf_printf(&o,
              "<text transform=\"translate(18,%g) rotate(-90)\" text-anchor=\"middle\">score (0 = random search, "
              "1 = optimum)</text>\n",
              (T + H - Bm) / 2);
  for (int s = 0; s < cfg->nstrat; s++) {
    const char *c = colors[s % 10];
    dbuf_printf(&o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"", c,
                strcmp(cfg->strat[s], "hybrid") ? "1.6" : "2.8");
    for (int b = b0; b <= b1; b++)
      if (isfinite(curve[s][b])) dbuf_printf(&o, "%.1f,%.1f ", X(b), Y(curve[s][b]));
    dbuf_puts(&o, "\"/>\n");
    double ly = T + 14 + 20 * s;
    dbuf_printf(&o, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"3\"/>\n", W - R + 14,
                ly, W - R + 40, ly, c);
    dbuf_printf(&o, "<text x=\"%g\" y=\"%g\">%s</text>\n", W - R + 46, ly + 4, cfg->strat[s]);
  }
  dbuf_puts(&o, "</svg>\n");
#undef X
#undef Y
  int rc = file_write_output(path, o.data, o.len, err);
  dbuf_free(&o);
  return rc;
}

static int parse_opts(int argc, char **argv, score_cfg *cfg, const char **svg, int *jobs, char ***files, int *nfiles,
                      char **strat_list, cterr *err) {
  long l;
  double d;
  int cost_aware = -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                                                                         \
  do {                                                                                                                 \
    if (!v) return cterr_set(err, "option %s needs a value (see --help)", a);                                          \
    i++;                                                                                                               \
  } while (0)
    if (a[0] != '-' || !a[1]) {
      (*files)[(*nfiles)++] = argv[i];
    } else if (!strcmp(a, "--strategies")) {
      NEED();
      free(*strat_list);
      *strat_list = xstrdup(v);
    } else if (!strcmp(a, "--repeats")) {
      NEED();
      if (parse_long(v, &l, "--repeats", err) < 0) return -1;
      if (l < 1) return cterr_set(err, "--repeats must be at least 1 (got %ld)", l);
      cfg->repeats = (int)l;
    } else if (!strcmp(a, "--budget-max") || !strcmp(a, "--budget-min")) {
      NEED();
      if (parse_long(v, &l, a, err) < 0) return -1;
      if (l < 1 || l > SCORE_BMAX) return cterr_set(err, "%s must be 1..%d (got %ld)", a, SCORE_BMAX, l);
      *(!strcmp(a, "--budget-max") ? &cfg->budget_max : &cfg->budget_min) = (int)l;
    } else if (!strcmp(a, "--seed")) {
      NEED();
      if (parse_long(v, &l, "--seed", err) < 0) return -1;
      cfg->seed = (uint64_t)l;
    } else if (!strcmp(a, "--noisy")) {
      cfg->noisy = 1;
    } else if (!strcmp(a, "--profile")) {
      cfg->profile = 1;
    } else if (!strcmp(a, "--batch")) {
      NEED();
      if (parse_long(v, &l, "--batch", err) < 0) return -1;
      if (l < 1 || l > 256) return cterr_set(err, "--batch must be 1..256 (got %ld)", l);
      cfg->batch = (int)l;
    } else if (!strcmp(a, "--cost")) {
      NEED();
      if (strcmp(v, "evals") && strcmp(v, "time")) return cterr_set(err, "--cost must be evals or time (got '%s')", v);
      cfg->cost_time = !strcmp(v, "time");
    } else if (!strcmp(a, "--cost-aware")) {
      NEED();
      if (strcmp(v, "on") && strcmp(v, "off")) return cterr_set(err, "--cost-aware must be on or off (got '%s')", v);
      cost_aware = !strcmp(v, "on");
    } else if (!strcmp(a, "--hybrid-credit")) {
      NEED();
      if (strcmp(v, "on") && strcmp(v, "off")) return cterr_set(err, "--hybrid-credit must be on or off (got '%s')", v);
      cfg->opts.hybrid_credit = !strcmp(v, "on") ? 0 : -1;
    } else if (!strcmp(a, "--hybrid-arm")) {
      NEED();
      cfg->opts.hybrid_arm = v;
    } else if (!strcmp(a, "--jobs")) {
      NEED();
      if (parse_long(v, &l, "--jobs", err) < 0) return -1;
      if (l < 1 || l > 256) return cterr_set(err, "--jobs must be 1..256 (got %ld)", l);
      *jobs = (int)l;
    } else if (!strcmp(a, "--svg")) {
      NEED();
      *svg = v;
    } else if (!strcmp(a, "--csv")) {
      NEED();
      cfg->csv = v;
    } else if (!strcmp(a, "--arms")) {
      NEED();
      cfg->opts.arms = v;
    } else if (!strcmp(a, "--bandit-c") || !strcmp(a, "--bo-xi") || !strcmp(a, "--hybrid-ramp") ||
               !strcmp(a, "--hybrid-max") || !strcmp(a, "--hybrid-credit-min") || !strcmp(a, "--hybrid-credit-max") ||
               !strcmp(a, "--hybrid-decay")) {
      NEED();
      if (parse_double(v, &d, a, err) < 0) return -1;
      if (!(d > 0)) return cterr_set(err, "%s must be positive (got %s)", a, v);
      if ((!strcmp(a, "--hybrid-max") || !strncmp(a, "--hybrid-credit-", 16) || !strcmp(a, "--hybrid-decay")) && d > 1)
        return cterr_set(err, "%s is a fraction: 0..1 (got %s)", a, v);
      *(!strcmp(a, "--bo-xi")               ? &cfg->opts.bo_xi
        : !strcmp(a, "--hybrid-ramp")       ? &cfg->opts.hybrid_ramp
        : !strcmp(a, "--hybrid-max")        ? &cfg->opts.hybrid_max
        : !strcmp(a, "--hybrid-credit-min") ? &cfg->opts.hybrid_credit_min
        : !strcmp(a, "--hybrid-credit-max") ? &cfg->opts.hybrid_credit_max
        : !strcmp(a, "--hybrid-decay")      ? &cfg->opts.hybrid_decay
                                            : &cfg->opts.bandit_c) = d;
    } else if (!strcmp(a, "--bandit-window") || !strcmp(a, "--ga-pop") || !strcmp(a, "--bo-init") ||
               !strcmp(a, "--bo-candidates") || !strcmp(a, "--hybrid-patience") || !strcmp(a, "--hybrid-min") ||
               !strcmp(a, "--bo-design")) {
      NEED();
      if (parse_long(v, &l, a, err) < 0) return -1;
      if (l < 1 || l > 1000000) return cterr_set(err, "%s must be 1..1000000 (got %ld)", a, l);
      if (!strcmp(a, "--bandit-window")) cfg->opts.bandit_window = (int)l;
      else if (!strcmp(a, "--ga-pop")) cfg->opts.ga_pop = (int)l;
      else if (!strcmp(a, "--bo-init")) cfg->opts.bo_init = (int)l;
      else if (!strcmp(a, "--hybrid-patience")) cfg->opts.hybrid_patience = (int)l;
      else if (!strcmp(a, "--hybrid-min")) cfg->opts.hybrid_min = (int)l;
      else if (!strcmp(a, "--bo-design")) cfg->opts.bo_design = (int)l;
      else cfg->opts.bo_candidates = (int)l;
    } else {
      return cterr_set(err, "unknown option '%s' (see 'cutune score --help')", a);
    }
#undef NEED
  }
  cfg->opts.cost_aware = cost_aware >= 0 ? cost_aware : cfg->cost_time;
  if (cfg->budget_min > cfg->budget_max)
    return cterr_set(err, "--budget-min (%d) exceeds --budget-max (%d)", cfg->budget_min, cfg->budget_max);
  if (!*nfiles) return cterr_set(err, "no files given (usage: cutune score [options] FILE...; see --help)");
  const char *const *known = strategy_names();
  for (char *tok = strtok(*strat_list, ","); tok; tok = strtok(NULL, ",")) {
    int ok = 0;
    for (int k = 0; known[k]; k++) ok |= !strcmp(known[k], tok);
    if (!ok)
      return cterr_set(err,
                       "--strategies: unknown strategy '%s' (known: exhaustive, random, ils, ga, anneal, "
                       "bo, bandit, hybrid)",
                       tok);
    if (cfg->nstrat == SCORE_MAXSTRAT) return cterr_set(err, "--strategies: at most %d", SCORE_MAXSTRAT);
    cfg->strat[cfg->nstrat++] = tok;
  }
  if (!cfg->nstrat) return cterr_set(err, "--strategies: empty list");
  return 0;
}

/* --csv: budget, then the mean score of every strategy at that budget, one row per budget. */
static int write_csv(const char *path, const score_cfg *cfg, double (*curve)[SCORE_BMAX + 1], cterr *err) {
  dbuf o;
  dbuf_init(&o);
  dbuf_puts(&o, cfg->cost_time ? "budget_mean_costs" : "budget_evals");
  for (int s = 0; s < cfg->nstrat; s++) dbuf_printf(&o, ",%s", cfg->strat[s]);
  dbuf_puts(&o, "\n");
  for (int b = 1; b <= cfg->budget_max; b++) {
    dbuf_printf(&o, "%d", b);
    for (int s = 0; s < cfg->nstrat; s++) dbuf_printf(&o, ",%.4f", curve[s][b]);
    dbuf_puts(&o, "\n");
  }
  int rc = file_write_output(path, o.data, o.len, err);
  dbuf_free(&o);
  return rc;
}

/* --profile: the strategies' own CPU time per proposal (ask + tell), in milliseconds, averaged
 * over files and repeats, over the evaluations just before each mark. */
static void print_profile(const score_cfg *cfg, const score_result *all, const int *done, int nfiles) {
  int marks[6] = {10, 50, 200, 1000, 2000}, nm = 0;
  while (nm < 5 && marks[nm] < cfg->budget_max) nm++;
  marks[nm++] = cfg->budget_max; /* the marks below budget_max, then budget_max itself */
  printf("\nstrategy CPU time per proposal, ms (mean over the 10%% of evaluations before each mark):\n%-10s",
         "strategy");
  for (int k = 0; k < nm; k++) printf(" %9d", marks[k]);
  printf("\n");
  for (int s = 0; s < cfg->nstrat; s++) {
    printf("%-10s", cfg->strat[s]);
    for (int k = 0; k < nm; k++) {
      int lo = marks[k] - (marks[k] >= 10 ? marks[k] / 10 : 1) + 1;
      double sum = 0;
      long cnt = 0;
      for (int f = 0; f < nfiles; f++) {
        if (!done[f]) continue;
        for (int b = lo; b <= marks[k]; b++) sum += all[(size_t)f * cfg->nstrat + s].cpu[b], cnt++;
      }
      printf(" %9.3f", cnt ? 1000 * sum / cnt : NAN);
    }
    printf("\n");
  }
}

int search_score_main(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(score_usage, stdout);
      return 0;
    }
  score_cfg cfg = {.repeats = 25, .budget_min = 10, .budget_max = 200, .seed = 1, .batch = 1};
  const char *svg = NULL; /* --svg: nothing is written unasked */
  int jobs = 2, nfiles = 0, status = 0;
  char **files = xcalloc((size_t)argc + 1, sizeof(char *));
  char *strat_list = xstrdup("random,ils,ga,anneal,bo,bandit,hybrid");
  cterr err = {0};
  if (parse_opts(argc, argv, &cfg, &svg, &jobs, &files, &nfiles, &strat_list, &err) < 0) {
    fprintf(stderr, "cutune score: %s\n", err.msg);
    free(files), free(strat_list);
    return 2;
  }
  if (jobs > nfiles) jobs = nfiles;
  double t0 = now_seconds();
  score_result *all = xcalloc((size_t)nfiles * (size_t)cfg.nstrat, sizeof *all);
  int *done = xcalloc((size_t)nfiles, sizeof(int));
  int nj = 0;
  pid_t pids[256];
  int fds[256];
  fflush(stdout), fflush(stderr);
  for (int j = 0; j < jobs; j++) {
    int p[2];
    if (pipe(p) < 0) {
      fprintf(stderr, "cutune score: pipe: %s\n", strerror(errno));
      status = 1;
      break;
    }
    pid_t pid = fork();
    if (pid < 0) {
      fprintf(stderr, "cutune score: fork: %s\n", strerror(errno));
      close(p[0]), close(p[1]);
      status = 1;
      break;
    }
    if (pid == 0) {
      close(p[0]);
      worker(p[1], j, jobs, files, nfiles, &cfg);
      close(p[1]);
      _exit(0);
    }
    close(p[1]);
    pids[nj] = pid, fds[nj++] = p[0];
  }
  for (int j = 0; j < nj; j++) {
    file_header h;
    while (fd_read_all(fds[j], &h, sizeof h) == 0) {
      if (h.file < 0 || h.file >= nfiles) break;
      if (!h.ok) {
        fprintf(stderr, "cutune score: %s\n", h.msg);
        status = 1;
        continue;
      }
      if (fd_read_all(fds[j], all + (size_t)h.file * cfg.nstrat, (size_t)cfg.nstrat * sizeof *all) < 0) break;
      done[h.file] = 1;
      double sec = 0;
      for (int s = 0; s < cfg.nstrat; s++) sec += all[(size_t)h.file * cfg.nstrat + s].seconds;
      fprintf(stderr, "scored %s (%.1f s of strategy time)\n", files[h.file], sec);
    }
    close(fds[j]);
    int ws;
    waitpid(pids[j], &ws, 0);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws)) {
      fprintf(stderr, "cutune score: worker %d died (%s %d); its remaining files are not scored\n", j,
              WIFSIGNALED(ws) ? "signal" : "exit status", WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
      status = 1;
    }
  }
  int ndone = 0;
  for (int f = 0; f < nfiles; f++) ndone += done[f];
  if (!ndone) {
    fprintf(stderr, "cutune score: no file could be scored\n");
    free(all), free(done), free(files), free(strat_list);
    return 1;
  }
  /* aggregate over the files that were scored */
  double(*curve)[SCORE_BMAX + 1] = xcalloc((size_t)cfg.nstrat, sizeof *curve);
  double frac[SCORE_MAXSTRAT][SCORE_NFRAC] = {{0}}, secs[SCORE_MAXSTRAT] = {0};
  for (int s = 0; s < cfg.nstrat; s++) {
    for (int f = 0; f < nfiles; f++) {
      if (!done[f]) continue;
      const score_result *r = &all[(size_t)f * cfg.nstrat + s];
      for (int b = 1; b <= cfg.budget_max; b++) curve[s][b] += r->score[b] / ndone;
      for (int k = 0; k < SCORE_NFRAC; k++) frac[s][k] += r->frac[k] / ndone;
      secs[s] += r->seconds;
    }
  }
  printf("scoreboard: %d file%s, %d repeats, budgets %d..%d, seed %llu, %s", ndone, ndone == 1 ? "" : "s", cfg.repeats,
         cfg.budget_min, cfg.budget_max, (unsigned long long)cfg.seed, cfg.noisy ? "noisy" : "noiseless");
  if (cfg.batch > 1) printf(", batch %d", cfg.batch);
  if (cfg.cost_time) printf(", cost time (budget b = b mean costs in seconds; per file below)");
  printf("\n");
  printf("\n%-10s %10s %8s %8s %8s %8s %8s | %-29s %9s\n", "strategy", "mean score", "min>=20", "@20", "@50", "@100",
         "@200", "optimum/best @25  @50  @100  @200", "cpu s");
  for (int s = 0; s < cfg.nstrat; s++) {
    double mean = 0;
    for (int b = cfg.budget_min; b <= cfg.budget_max; b++) mean += curve[s][b];
    mean /= cfg.budget_max - cfg.budget_min + 1;
    double lo = INFINITY; /* the lowest score from 20 evaluations on (the target: above 0) */
    for (int b = cfg.budget_min > 20 ? cfg.budget_min : 20; b <= cfg.budget_max; b++) lo = fmin(lo, curve[s][b]);
    printf("%-10s %10.3f", cfg.strat[s], mean);
    if (isfinite(lo)) printf(" %8.3f", lo);
    else printf(" %8s", "-");
    const int at[4] = {20, 50, 100, 200};
    for (int k = 0; k < 4; k++)
      if (at[k] <= cfg.budget_max) printf(" %8.3f", curve[s][at[k]]);
      else printf(" %8s", "-");
    printf(" |              ");
    for (int k = 0; k < SCORE_NFRAC; k++)
      if (score_frac_at[k] <= cfg.budget_max) printf(" %5.3f", frac[s][k]);
      else printf(" %5s", "-");
    printf(" %9.1f\n", secs[s]);
  }
  if (cfg.profile) print_profile(&cfg, all, done, nfiles);
  printf("\nmean score per file (budgets %d..%d):\n%-34s", cfg.budget_min, cfg.budget_max, "file");
  for (int s = 0; s < cfg.nstrat; s++) printf(" %8.8s", cfg.strat[s]);
  if (cfg.cost_time) printf(" %10s %s", "budget s", "evals/run");
  printf("\n");
  for (int f = 0; f < nfiles; f++) {
    if (!done[f]) continue;
    const char *name = files[f];
    size_t len = strlen(name);
    printf("%-34s", len > 34 ? name + len - 34 : name);
    for (int s = 0; s < cfg.nstrat; s++) {
      double mean = 0;
      for (int b = cfg.budget_min; b <= cfg.budget_max; b++) mean += all[(size_t)f * cfg.nstrat + s].score[b];
      printf(" %8.3f", mean / (cfg.budget_max - cfg.budget_min + 1));
    }
    if (cfg.cost_time) {
      printf(" %10.1f", all[(size_t)f * cfg.nstrat].budget_s);
      for (int s = 0; s < cfg.nstrat; s++) printf("%s%.0f", s ? "," : " ", all[(size_t)f * cfg.nstrat + s].evals);
    }
    printf("\n");
  }
  if (cfg.csv && write_csv(cfg.csv, &cfg, curve, &err) < 0) {
    fprintf(stderr, "cutune score: %s\n", err.msg);
    status = 1;
  }
  if (svg && write_svg(svg, &cfg, curve, ndone, &err) < 0) {
    fprintf(stderr, "cutune score: %s\n", err.msg);
    status = 1;
  } else {
    printf("\n%s%s%s(wall time %.1f s)\n", svg ? "plot: " : "", svg ? svg : "", svg ? "   " : "", now_seconds() - t0);
  }
  free(curve), free(all), free(done), free(files), free(strat_list);
  return status;
}
