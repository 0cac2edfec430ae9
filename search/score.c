/* score: `cutune score FILE...` — see score.h. Files are spread over forked worker processes
 * (--jobs); each sends its per-space curves back over a pipe. */
#include "score.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "replay.h"
#include "score_impl.h"
#include "strategy.h"

double score_random_expected(const double *sorted, size_t m, size_t n, long k) {
  if (m == 0 || k < 1 || n == 0) return NAN;
  if ((size_t)k > n) k = (long)n;
  double e = 0, p = (double)k / (double)n; /* P_0 */
  for (size_t i = 0; i < m; i++) {
    e += sorted[i] * p;
    if (n - 1 - i == 0) break;
    p *= (double)((long)n - (long)i - k) / (double)(n - 1 - i);
    if (p <= 0) break;
  }
  double pf = 1;
  for (long j = 0; j < k && pf > 0; j++) pf *= (double)((long)(n - m) - j) / (double)((long)n - j);
  if (pf > 0) e += sorted[m - 1] * pf;
  return e;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

const int score_frac_at[SCORE_NFRAC] = {25, 50, 100, 200};

/* Score every strategy on one file; res[s] receives its curves. */
int score_file(const char *path, const score_cfg *cfg, score_result *res, cterr *err) {
  replay *r;
  if (replay_load(path, NULL, &r, err) < 0) return -1;
  for (const char *w = replay_warnings(r); *w;) { /* skipped lines and bad times: said, not silent */
    size_t len = strcspn(w, "\n");
    fprintf(stderr, "cutune score: warning: %.*s\n", (int)len, w);
    w += len + (w[len] ? 1 : 0);
  }
  const configset *cs = replay_configs(r);
  size_t n = replay_count(r), m = 0;
  double *sorted = xmalloc(n * sizeof(double));
  for (size_t i = 0; i < n; i++)
    if (isfinite(replay_value(r, i))) sorted[m++] = replay_value(r, i);
  if (!m) {
    free(sorted), replay_free(r);
    return cterr_set(err, "%s: no configuration succeeded: nothing to score", path);
  }
  qsort(sorted, m, sizeof(double), cmp_double);
  double opt = sorted[0], worst = sorted[m - 1];
  int B = cfg->budget_max;
  /* with cost_time, budget b is b times the mean recorded cost of a configuration (failed ones
   * included): what random search spends on average in b draws, so the baseline stays E_b */
  double mean_cost = 0;
  for (size_t i = 0; i < n; i++) mean_cost += replay_cost_seconds(r, i);
  mean_cost /= (double)n;
  if (cfg->cost_time && !(mean_cost > 0)) {
    free(sorted), replay_free(r);
    return cterr_set(err, "%s: no recorded compile or measuring time: cannot score by time", path);
  }
  double *sum = xmalloc((size_t)(B + 1) * sizeof(double));
  int rc = 0;
  for (int si = 0; si < cfg->nstrat && rc == 0; si++) {
    score_result *sr = &res[si];
    memset(sr, 0, sizeof *sr);
    for (int b = 0; b <= B; b++) sum[b] = 0;
    double t0 = now_seconds();
    for (int rep = 0; rep < cfg->repeats && rc == 0; rep++) {
      uint64_t seed = cfg->seed * 1000003ULL + (uint64_t)rep;
      strategy *s;
      strategy_opts o = cfg->opts;
      o.budget_hint = B;
      if (strategy_new(cfg->strat[si], cs, seed, &o, &s, err) < 0) {
        rc = -1;
        break;
      }
      replay_eval ev = {.r = r, .noisy = cfg->noisy};
      rng_seed(&ev.rng, seed ^ 0x5eed5eedULL);
      search_budget bud = {.evals = B, .seconds = 0, .batch = cfg->batch};
      if (cfg->cost_time) bud.evals = (long)B * 50, bud.seconds = B * mean_cost;
      search_outcome out;
      if (search_run(s, &bud, replay_evaluate, NULL, &ev, &out, err) < 0) {
        strategy_free(s);
        rc = -1;
        break;
      }
      sr->evals += (double)out.ncurve;
      /* the true (mean) value of the configuration the strategy holds best at each budget:
       * after b evaluations, or once the summed cost reaches b mean costs */
      long k = -1;
      for (int b = 1; b <= B; b++) {
        if (cfg->cost_time)
          while (k + 1 < out.ncurve && out.curve_s[k + 1] <= b * mean_cost * (1 + 1e-12)) k++;
        else k = b <= out.ncurve ? b - 1 : out.ncurve - 1;
        long idx = k >= 0 ? out.curve_idx[k] : -1;
        double v = idx >= 0 ? replay_value(r, (size_t)idx) : worst;
        if (!isfinite(v)) v = worst;
        sum[b] += v;
        if (b <= out.ncurve) sr->cpu[b] += out.step_cpu[b - 1] / cfg->repeats;
        for (int f = 0; f < SCORE_NFRAC; f++)
          if (b == score_frac_at[f]) sr->frac[f] += opt / v;
      }
      search_outcome_free(&out);
      strategy_free(s);
    }
    sr->seconds = now_seconds() - t0;
    sr->budget_s = cfg->cost_time ? B * mean_cost : 0;
    sr->evals /= cfg->repeats;
    for (int f = 0; f < SCORE_NFRAC; f++) sr->frac[f] /= cfg->repeats;
    for (int b = 1; b <= B; b++) {
      double mean = sum[b] / cfg->repeats, e = score_random_expected(sorted, m, n, b);
      sr->score[b] = e - opt > 1e-12 * fabs(opt) ? (e - mean) / (e - opt) : (mean <= opt ? 1 : 0);
    }
  }
  free(sum), free(sorted), replay_free(r);
  return rc;
}
