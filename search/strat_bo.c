/* strat_bo: Bayesian optimisation with a Gaussian process over the discrete, constrained space.
 *
 * Model: GP on log(time), standardised, Matérn 5/2 kernel over parameter values normalised
 * to [0,1] (by numeric value where every value is a number, else by position), one length
 * scale plus a noise term, both chosen by maximising the marginal likelihood over a small grid
 * (Cholesky by LAPACK dpotrf_/dpotrs_, jitter added when a factorisation fails). Failed
 * configurations get the worst value seen. Acquisition: expected improvement with an explicit
 * exploration offset xi, maximised over a fixed random pool of unvisited valid configurations
 * plus the free neighbours of the best one. Initial design: bo_init random configurations.
 *
 * Cost (strategy_opts.cost_aware, for budgets in seconds): a main-effects model of log cost
 * (compile + measuring seconds told by strategy_tell_cost; one effect per parameter value)
 * predicts each candidate's cost; the acquisition is EI / cost^alpha with alpha cooled from
 * 1 to 0 over budget_hint evaluations (EI-cool).
 *
 * Batches (several asks before the results are told): every configuration BO proposed and
 * that is not told yet stays in the model with a "kriging believer" value (the model's own
 * mean prediction for it when it was picked), so the next pick of the batch sees its variance
 * gone and moves elsewhere; the told value replaces the belief. One at a time nothing is
 * pending and the model is exactly the one without batches.
 *
 * Cost: the hyperparameters are refitted on a geometric schedule (every time the data grew by
 * half); between refits each new observation extends the Cholesky factor L and the solved
 * pool block V = L^-1 K(X, pool) by one row, O(N^2 + N*pool) instead of O(N^2 * pool). */
#include "strategy_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LAPACK (Fortran calling convention; liblapack is linked statically). */
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
                    const int *ldb, int *info);

#define GP_MAX 320 /* observations in the model at most; beyond, a subset (best + recent) */
#define NB_BEST 128
#define FIT_MAX                                                                                                        \
  100 /* observations the hyperparameter likelihood is evaluated on */ /* neighbours of the best scored besides the pool */

typedef struct {
  int d; /* active dimensions (parameters with more than one value) */
  int dim_param[CS_MAX_PARAMS];
  double *feat[CS_MAX_PARAMS]; /* per active dimension: normalised value per value index */
  double ls, noise;
  /* model */
  size_t *gx;
  int gn, fitted_n, next_fit;
  size_t told_used; /* s->told[0..told_used) were offered to the model */
  uint8_t *in_model;
  double *L; /* GP_MAX x GP_MAX, column-major, lower */
  /* candidate pool */
  size_t *pool;
  int C;
  double *V;  /* GP_MAX x C, row i = L^-1 row i applied to K(X, pool) */
  double *ss; /* per pool entry: squared norm of its V column */
  double *y, *w, *kv, *lv, *mu;
  double *ceff[CS_MAX_PARAMS]; /* cost_aware: per active dimension, the log-cost effect per value (+ scratch) */
  double cmean;
  size_t nb[NB_BEST];
  double ymean, ysd;       /* standardisation of the last model_targets (log units) */
  size_t pend[GP_MAX];     /* proposed by BO, not told yet */
  double pend_lie[GP_MAX]; /* their believed log value */
  int npend;
} bo_state;

static double matern52(double r2, double ls) {
  double r = sqrt(r2) / ls, s5 = sqrt(5.0) * r;
  return (1.0 + s5 + 5.0 * r * r / 3.0) * exp(-s5);
}

static double dist2(const strategy *s, const bo_state *b, size_t i, size_t j) {
  const uint16_t *a = configset_row(s->cs, i), *c = configset_row(s->cs, j);
  double r2 = 0;
  for (int k = 0; k < b->d; k++) {
    int p = b->dim_param[k];
    double t = b->feat[k][a[p]] - b->feat[k][c[p]];
    r2 += t * t;
  }
  return r2;
}

static double kern(const strategy *s, const bo_state *b, size_t i, size_t j) {
  return matern52(dist2(s, b, i, j), b->ls);
}

static int bo_init(strategy *s, cterr *err) {
  bo_state *b = xcalloc(1, sizeof *b);
  s->impl = b;
  for (int p = 0; p < s->np; p++) {
    const cs_param *pp = configset_param(s->cs, p);
    if (pp->nvalues < 2) continue;
    int k = b->d++;
    b->dim_param[k] = p;
    b->feat[k] = xmalloc((size_t)pp->nvalues * sizeof(double));
    double lo = INFINITY, hi = -INFINITY;
    int numeric = 1;
    for (int v = 0; v < pp->nvalues; v++) {
      if (!isfinite(pp->num[v])) numeric = 0;
      else lo = fmin(lo, pp->num[v]), hi = fmax(hi, pp->num[v]);
    }
    for (int v = 0; v < pp->nvalues; v++)
      b->feat[k][v] = (numeric && hi > lo) ? (pp->num[v] - lo) / (hi - lo) : (double)v / (pp->nvalues - 1);
  }
  b->C = s->o.bo_candidates;
  if ((size_t)b->C > s->n) b->C = (int)s->n;
  b->gx = xmalloc(GP_MAX * sizeof(size_t));
  b->in_model = xcalloc(s->n, 1);
  b->L = xcalloc((size_t)GP_MAX * GP_MAX, sizeof(double));
  b->pool = xcalloc((size_t)b->C, sizeof(size_t));
  b->V = xmalloc((size_t)GP_MAX * (size_t)b->C * sizeof(double));
  b->ss = xcalloc((size_t)b->C, sizeof(double));
  b->mu = xmalloc((size_t)b->C * sizeof(double));
  b->y = xmalloc(GP_MAX * sizeof(double));
  b->w = xmalloc(GP_MAX * sizeof(double));
  b->kv = xmalloc(GP_MAX * sizeof(double));
  b->lv = xmalloc(GP_MAX * sizeof(double));
  return 0;
}

static void bo_free(strategy *s) {
  bo_state *b = s->impl;
  for (int k = 0; k < b->d; k++) free(b->feat[k]), free(b->ceff[k]);
  free(b->gx), free(b->in_model), free(b->L), free(b->pool), free(b->V), free(b->ss), free(b->mu);
  free(b->y), free(b->w), free(b->kv), free(b->lv), free(b);
}

/* Standardised log values of the model's observations into b->y; failures get the worst. */
static void model_targets(const strategy *s, bo_state *b) {
  double worst = -INFINITY, sum = 0, sq = 0, lsum = 0;
  int nf = 0, nl = 0;
  for (int i = 0; i < b->gn; i++) {
    double v = s->val[b->gx[i]];
    if (isfinite(v)) worst = fmax(worst, log(fmax(v, 1e-300))), lsum += log(fmax(v, 1e-300)), nl++;
  }
  if (!isfinite(worst)) worst = 0;
  for (int i = 0; i < b->gn; i++) {
    double v = s->val[b->gx[i]];
    b->y[i] = isfinite(v) ? log(fmax(v, 1e-300)) : worst;
    if (isnan(v)) /* pending: what the model believed when it was proposed, else the mean */
      for (int k = 0; k < b->npend; k++)
        if (b->pend[k] == b->gx[i]) b->y[i] = isnan(b->pend_lie[k]) ? (nl ? lsum / nl : worst) : b->pend_lie[k];
    sum += b->y[i], nf++;
  }
  double mean = nf ? sum / nf : 0;
  for (int i = 0; i < b->gn; i++) sq += (b->y[i] - mean) * (b->y[i] - mean);
  double sd = nf > 1 ? sqrt(sq / (nf - 1)) : 1;
  if (!(sd > 1e-12)) sd = 1;
  for (int i = 0; i < b->gn; i++) b->y[i] = (b->y[i] - mean) / sd;
  b->ymean = mean, b->ysd = sd;
}

static void model_add(strategy *s, bo_state *b, size_t idx);

/* cost_aware: a main-effects model of log cost, fitted to every told cost by backfitting
 * (log cost = mean + one shrunk effect per parameter value): compile and measuring time
 * depend on a few parameters (unrolling, block size) across the whole space, which an additive
 * model carries to configurations far from the measured ones, where a GP with the time
 * model's length scale would fall back to the mean. Returns 0 when fewer than 3 costs are told. */
static int cost_fit(const strategy *s, bo_state *b) {
  double sum = 0;
  int nc = 0;
  for (size_t k = 0; k < s->ntold; k++)
    if (s->cost[s->told[k]] > 0) sum += log(s->cost[s->told[k]]), nc++;
  if (nc < 3) return 0;
  b->cmean = sum / nc;
  for (int d = 0; d < b->d; d++) {
    int nv = configset_param(s->cs, b->dim_param[d])->nvalues;
    if (!b->ceff[d]) b->ceff[d] = xmalloc((size_t)nv * 2 * sizeof(double));
    memset(b->ceff[d], 0, (size_t)nv * 2 * sizeof(double));
  }
  for (int sweep = 0; sweep < 4; sweep++)
    for (int d = 0; d < b->d; d++) {
      int p = b->dim_param[d], nv = configset_param(s->cs, p)->nvalues;
      double *e = b->ceff[d], *acc = e + nv; /* acc: residual sums, then counts reuse below */
      double cnt[1024];
      int nvc = nv < 1024 ? nv : 1024;
      for (int v = 0; v < nvc; v++) acc[v] = 0, cnt[v] = 0;
      for (size_t k = 0; k < s->ntold; k++) {
        size_t i = s->told[k];
        if (!(s->cost[i] > 0)) continue;
        const uint16_t *row = configset_row(s->cs, i);
        if (row[p] >= nvc) continue;
        double r = log(s->cost[i]) - b->cmean;
        for (int q = 0; q < b->d; q++)
          if (q != d) r -= b->ceff[q][row[b->dim_param[q]]];
        acc[row[p]] += r, cnt[row[p]] += 1;
      }
      for (int v = 0; v < nvc; v++) e[v] = acc[v] / (cnt[v] + 1.0); /* shrunk toward 0 */
    }
  return 1;
}

/* Predicted log cost of row i minus the mean (cost_fit first). */
static double cost_pred(const strategy *s, const bo_state *b, size_t i) {
  const uint16_t *row = configset_row(s->cs, i);
  double c = 0;
  for (int d = 0; d < b->d; d++) c += b->ceff[d][row[b->dim_param[d]]];
  return c;
}

/* Drop pending entries that have been told; put the others into the model (batches). */
static void pending_update(strategy *s, bo_state *b) {
  int k = 0;
  for (int j = 0; j < b->npend; j++)
    if (isnan(s->val[b->pend[j]])) b->pend[k] = b->pend[j], b->pend_lie[k++] = b->pend_lie[j];
  b->npend = k;
  for (int j = 0; j < b->npend; j++)
    if (!b->in_model[b->pend[j]] && b->gn < GP_MAX) model_add(s, b, b->pend[j]);
}

/* Solve L x = k (forward substitution) for the first n rows. */
static void forward(const double *L, int ld, int n, const double *k, double *x) {
  for (int i = 0; i < n; i++) {
    double t = k[i];
    for (int j = 0; j < i; j++) t -= L[i + (size_t)j * ld] * x[j];
    x[i] = t / L[i + (size_t)i * ld];
  }
}

/* Factor K(X,X) + noise I over the n observations x[] into A (ld GP_MAX); jitter on failure.
 * Returns 0 or -1. */
static int factor(const strategy *s, const bo_state *b, const size_t *x, int n, double ls, double noise, double *A) {
  int ld = GP_MAX, info = 0;
  for (double jitter = 0; jitter <= 1e-2; jitter = jitter ? jitter * 100 : 1e-8) {
    for (int j = 0; j < n; j++)
      for (int i = j; i < n; i++)
        A[i + (size_t)j * ld] = matern52(dist2(s, b, x[i], x[j]), ls) + (i == j ? noise + jitter : 0);
    dpotrf_("L", &n, A, &ld, &info);
    if (info == 0) return 0;
  }
  return -1;
}

/* Refit: choose the model's observations, pick hyperparameters by marginal likelihood, factor. */
static void model_refit(strategy *s, bo_state *b) {
  memset(b->in_model, 0, s->n);
  b->gn = 0;
  if (s->ntold <= GP_MAX - 64) {
    for (size_t k = 0; k < s->ntold; k++) b->gx[b->gn++] = s->told[k];
  } else { /* the best half, then the most recent */
    int half = (GP_MAX - 64) / 2;
    size_t *ord = xmalloc(s->ntold * sizeof(size_t));
    memcpy(ord, s->told, s->ntold * sizeof(size_t));
    for (int k = 0; k < half; k++) { /* partial selection sort: the `half` smallest */
      size_t m = (size_t)k;
      for (size_t q = (size_t)k + 1; q < s->ntold; q++)
        if (s->val[ord[q]] < s->val[ord[m]]) m = q;
      size_t t = ord[k];
      ord[k] = ord[m], ord[m] = t;
    }
    for (int k = 0; k < half; k++) b->gx[b->gn++] = ord[k], b->in_model[ord[k]] = 1;
    for (size_t k = s->ntold; k-- > 0 && b->gn < GP_MAX - 64;)
      if (!b->in_model[s->told[k]]) b->gx[b->gn++] = s->told[k], b->in_model[s->told[k]] = 1;
    free(ord);
  }
  for (int i = 0; i < b->gn; i++) b->in_model[b->gx[i]] = 1;
  model_targets(s, b);

  static const double ls_grid[] = {0.1, 0.2, 0.35, 0.6, 1.0, 1.7};
  static const double noise_grid[] = {1e-4, 1e-2, 0.1};
  double best = -INFINITY, bls = 0.35 * sqrt(b->d), bnoise = 1e-2, scale = sqrt((double)(b->d ? b->d : 1));
  double *A = xmalloc((size_t)GP_MAX * GP_MAX * sizeof(double)), *alpha = xmalloc(GP_MAX * sizeof(double));
  /* the likelihood is judged on at most FIT_MAX observations (every other one beyond), which
   * keeps the grid cheap on long runs */
  size_t fx[FIT_MAX];
  double fy[FIT_MAX];
  int n = 0, stride = (b->gn + FIT_MAX - 1) / FIT_MAX, one = 1, ld = GP_MAX, info;
  for (int i = 0; i < b->gn && n < FIT_MAX; i += stride) fx[n] = b->gx[i], fy[n++] = b->y[i];
  for (size_t a = 0; a < sizeof ls_grid / sizeof *ls_grid; a++)
    for (size_t c = 0; c < sizeof noise_grid / sizeof *noise_grid; c++) {
      double ls = ls_grid[a] * scale;
      if (factor(s, b, fx, n, ls, noise_grid[c], A) < 0) continue;
      memcpy(alpha, fy, (size_t)n * sizeof(double));
      dpotrs_("L", &n, &one, A, &ld, alpha, &ld, &info);
      if (info) continue;
      double fit = 0, logdet = 0;
      for (int i = 0; i < n; i++) fit += fy[i] * alpha[i], logdet += log(A[i + (size_t)i * ld]);
      double lml = -0.5 * fit - logdet;
      if (lml > best) best = lml, bls = ls, bnoise = noise_grid[c];
    }
  b->ls = bls, b->noise = bnoise;
  if (factor(s, b, b->gx, b->gn, b->ls, b->noise, b->L) < 0) { /* nothing factors: a diagonal model */
    memset(b->L, 0, (size_t)GP_MAX * GP_MAX * sizeof(double));
    for (int i = 0; i < b->gn; i++) b->L[i + (size_t)i * GP_MAX] = 1;
  }
  free(A), free(alpha);
  b->fitted_n = (int)s->ntold;
  b->told_used = s->ntold;
  b->next_fit = b->fitted_n + (b->fitted_n / 2 > 8 ? b->fitted_n / 2 : 8);
}

/* V = L^-1 K(X, pool) and its column norms, from scratch. */
static void pool_solve(const strategy *s, bo_state *b) {
  int C = b->C;
  for (int i = 0; i < b->gn; i++) {
    double *vi = b->V + (size_t)i * C;
    for (int c = 0; c < C; c++) vi[c] = kern(s, b, b->gx[i], b->pool[c]);
    for (int j = 0; j < i; j++) {
      double l = b->L[i + (size_t)j * GP_MAX];
      const double *vj = b->V + (size_t)j * C;
      for (int c = 0; c < C; c++) vi[c] -= l * vj[c];
    }
    double d = b->L[i + (size_t)i * GP_MAX];
    for (int c = 0; c < C; c++) vi[c] /= d;
  }
  for (int c = 0; c < C; c++) b->ss[c] = 0;
  for (int i = 0; i < b->gn; i++)
    for (int c = 0; c < C; c++) b->ss[c] += b->V[(size_t)i * C + c] * b->V[(size_t)i * C + c];
}

/* A fresh pool of distinct free configurations (the pool may hold fewer than C). */
static void pool_refresh(strategy *s, bo_state *b) {
  uint8_t *taken = xcalloc(s->n, 1);
  int C = 0;
  size_t nfree = s->n - *s->nprop;
  int want = b->C;
  if ((size_t)want > nfree) want = (int)nfree;
  for (int t = 0; C < want && t < want * 8; t++) {
    size_t i = configset_sample(s->cs, &s->r);
    if (!s->prop[i] && !taken[i]) taken[i] = 1, b->pool[C++] = i;
  }
  for (size_t i = 0; i < s->n && C < want; i++)
    if (!s->prop[i] && !taken[i]) taken[i] = 1, b->pool[C++] = i;
  free(taken);
  /* unused tail slots (fewer free rows than the pool holds) repeat entry 0 and are masked */
  for (int c = C; c < b->C; c++) b->pool[c] = C ? b->pool[0] : 0;
  pool_solve(s, b);
  for (int c = C; c < b->C; c++) b->ss[c] = INFINITY;
}

/* Extend L and V by one observation (rank-1 growth of the Cholesky factor). */
static void model_add(strategy *s, bo_state *b, size_t idx) {
  int n = b->gn, C = b->C;
  for (int j = 0; j < n; j++) b->kv[j] = kern(s, b, b->gx[j], idx);
  forward(b->L, GP_MAX, n, b->kv, b->lv);
  double d2 = 1.0 + b->noise;
  for (int j = 0; j < n; j++) d2 -= b->lv[j] * b->lv[j];
  if (d2 < 1e-10) d2 = 1e-10; /* jitter: a point the model already explains exactly */
  double d = sqrt(d2);
  for (int j = 0; j < n; j++) b->L[n + (size_t)j * GP_MAX] = b->lv[j];
  b->L[n + (size_t)n * GP_MAX] = d;
  double *vn = b->V + (size_t)n * C;
  for (int c = 0; c < C; c++) vn[c] = isfinite(b->ss[c]) ? kern(s, b, idx, b->pool[c]) : 0;
  for (int j = 0; j < n; j++) {
    double l = b->lv[j];
    const double *vj = b->V + (size_t)j * C;
    for (int c = 0; c < C; c++) vn[c] -= l * vj[c];
  }
  for (int c = 0; c < C; c++) vn[c] /= d, b->ss[c] += vn[c] * vn[c];
  b->gx[n] = idx, b->in_model[idx] = 1, b->gn = n + 1;
}

static double norm_cdf(double z) { return 0.5 * erfc(-z / sqrt(2.0)); }
static double norm_pdf(double z) { return exp(-0.5 * z * z) / sqrt(2.0 * M_PI); }

static double ei(double mu, double var, double ybest, double xi) {
  double sd = sqrt(fmax(var, 1e-12)), imp = ybest - mu - xi, z = imp / sd;
  return imp * norm_cdf(z) + sd * norm_pdf(z);
}

/* A point of the initial design: the most distant (maximin, in the model's features) of a few
 * random free configurations from everything proposed or told so far. */
static long design_point(strategy *s, bo_state *b) {
  int mode = s->o.bo_design;
  long first = st_random_free(s);
  if (mode <= 1 || first < 0 || b->d == 0) return first;
  long pick = first;
  double best = -1;
  for (int t = 0; t < mode; t++) {
    long c = t ? st_random_free(s) : first;
    if (c < 0) break;
    double dmin = INFINITY;
    for (size_t k = 0; k < s->ntold; k++) dmin = fmin(dmin, dist2(s, b, (size_t)c, s->told[k]));
    for (int k = 0; k < b->npend; k++) dmin = fmin(dmin, dist2(s, b, (size_t)c, b->pend[k]));
    if (dmin > best) best = dmin, pick = c;
  }
  return pick;
}

static long bo_ask(strategy *s) {
  bo_state *b = s->impl;
  int have_finite = s->best_idx >= 0;
  if ((int)s->ntold < s->o.bo_init || !have_finite || b->d == 0) {
    long i = design_point(s, b);
    if (i >= 0 && b->npend < GP_MAX) b->pend[b->npend] = (size_t)i, b->pend_lie[b->npend++] = NAN;
    return i;
  }
  int refit = b->gn == 0 || (int)s->ntold >= b->next_fit;
  if (!refit)
    for (; b->told_used < s->ntold && !refit; b->told_used++)
      if (!b->in_model[s->told[b->told_used]]) {
        if (b->gn >= GP_MAX) refit = 1;
        else model_add(s, b, s->told[b->told_used]);
      }
  int C = b->C, nfree_pool = 0;
  for (int c = 0; c < C; c++) nfree_pool += isfinite(b->ss[c]) && !s->prop[b->pool[c]];
  if (refit) {
    model_refit(s, b);
    pool_refresh(s, b);
  } else if (nfree_pool < C / 4 && (size_t)nfree_pool < s->n - *s->nprop) {
    pool_refresh(s, b);
  }
  pending_update(s, b);
  model_targets(s, b);
  forward(b->L, GP_MAX, b->gn, b->y, b->w);
  double ybest = INFINITY;
  for (int i = 0; i < b->gn; i++) ybest = fmin(ybest, b->y[i]);
  double xi = s->o.bo_xi;

  for (int c = 0; c < C; c++) b->mu[c] = 0;
  for (int i = 0; i < b->gn; i++) {
    const double *vi = b->V + (size_t)i * C;
    double wi = b->w[i];
    for (int c = 0; c < C; c++) b->mu[c] += vi[c] * wi;
  }
  /* cost_aware: EI per predicted second, the cost's exponent cooled from 1 to 0 over the
   * expected evaluations (cheap configurations early, plain EI by the end: EI-cool, Lee et
   * al. 2020) */
  double alpha = 0;
  if (s->o.cost_aware && cost_fit(s, b)) {
    alpha = 1.0 - (double)s->ntold / (double)(s->o.budget_hint > 0 ? s->o.budget_hint : 200);
    if (alpha < 0) alpha = 0;
  }
#define COST_PENALTY(i) (alpha > 0 ? exp(-alpha * cost_pred(s, b, (i))) : 1.0)
  long pick = -1;
  double best_acq = -INFINITY, pick_mu = 0;
  for (int c = 0; c < C; c++) {
    if (!isfinite(b->ss[c]) || s->prop[b->pool[c]]) continue;
    double a = ei(b->mu[c], 1.0 - b->ss[c], ybest, xi) * COST_PENALTY(b->pool[c]);
    if (a > best_acq) best_acq = a, pick = (long)b->pool[c], pick_mu = b->mu[c];
  }
  /* the free neighbours of the best configuration, solved one by one */
  size_t nn = st_free_neighbours(s, (size_t)s->best_idx, CS_HAMMING, b->nb, NB_BEST);
  for (size_t k = 0; k < nn; k++) {
    for (int j = 0; j < b->gn; j++) b->kv[j] = kern(s, b, b->gx[j], b->nb[k]);
    forward(b->L, GP_MAX, b->gn, b->kv, b->lv);
    double mu = 0, ss = 0;
    for (int j = 0; j < b->gn; j++) mu += b->lv[j] * b->w[j], ss += b->lv[j] * b->lv[j];
    double a = ei(mu, 1.0 - ss, ybest, xi) * COST_PENALTY(b->nb[k]);
    if (a > best_acq) best_acq = a, pick = (long)b->nb[k], pick_mu = mu;
  }
#undef COST_PENALTY
  double lie = b->ymean + b->ysd * pick_mu;
  if (pick < 0) pick = st_random_free(s), lie = NAN;
  if (pick >= 0 && b->npend < GP_MAX) /* believed until told (batches) */
    b->pend[b->npend] = (size_t)pick, b->pend_lie[b->npend++] = lie;
  return pick;
}

const strategy_ops strat_bo_ops = {"bo", bo_init, bo_ask, NULL, bo_free, NULL};
