/* select: see select.h. The cover works on bit sets of shapes (one uint64_t word per 64). */
#include "select.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "search/transfer.h"

double select_round(double ratio) { return isfinite(ratio) ? round(ratio * 1e4) / 1e4 : ratio; }

double select_distance(const long long *a, const long long *b, int n) {
  double d = 1;
  for (int k = 0; k < n; k++) {
    double x = a[k] > 0 ? (double)a[k] : 1, y = b[k] > 0 ? (double)b[k] : 1;
    d *= x > y ? x / y : y / x;
  }
  return d;
}

/* The problem the cover works on: shapes `live` (a subset), their Rmin, who covers whom. */
typedef struct cover {
  const sel_input *in;
  int words;
  const unsigned char *live; /* shapes taking part (leave-one-out leaves one out) */
  double *rmin;
  uint64_t *cov; /* nc x words: shapes kernel c covers */
  double *lc;    /* np x nc: log(R / Rmin) of kernel c on live shape p, INFINITY where unmeasured */
  int *fo, *fp;  /* kernel c's live shapes with a finite LC_: fp[fo[c] .. fo[c+1]) (most kernels of a
                    store were measured on a few shapes: the swaps look at those alone) */
} cover;

#define R_(in, p, c) ((in)->R[(size_t)(p) * (size_t)(in)->nc + (size_t)(c)])
#define COV(cv, c) ((cv)->cov + (size_t)(c) * (size_t)(cv)->words)
#define LC_(cv, p, c) ((cv)->lc[(size_t)(p) * (size_t)(cv)->in->nc + (size_t)(c)])

static int popcount_and(const uint64_t *a, const uint64_t *b, int w) {
  int n = 0;
  for (int i = 0; i < w; i++) n += __builtin_popcountll(a[i] & b[i]);
  return n;
}

static void cover_init(cover *cv, const sel_input *in, const unsigned char *live) {
  cv->in = in, cv->live = live;
  cv->words = (in->np + 63) / 64;
  cv->rmin = xmalloc((size_t)(in->np ? in->np : 1) * sizeof *cv->rmin);
  cv->cov = xcalloc((size_t)in->nc * (size_t)cv->words + 1, sizeof *cv->cov);
  cv->lc = xmalloc(((size_t)in->np * (size_t)in->nc + 1) * sizeof *cv->lc);
  for (int p = 0; p < in->np; p++) {
    double m = INFINITY;
    for (int c = 0; c < in->nc; c++) m = fmin(m, R_(in, p, c));
    cv->rmin[p] = m;
    for (int c = 0; c < in->nc; c++) /* computed once: the swaps below try every kernel many times */
      LC_(cv, p, c) = isfinite(m) && isfinite(R_(in, p, c)) ? log(R_(in, p, c) / m) : INFINITY;
    if (!live[p] || !isfinite(m)) continue;
    for (int c = 0; c < in->nc; c++)
      if (R_(in, p, c) <= m * (1 + in->tol) + 1e-12) COV(cv, c)[p / 64] |= 1ULL << (p % 64);
  }
  cv->fo = xmalloc(((size_t)in->nc + 1) * sizeof *cv->fo);
  cv->fp = xmalloc(((size_t)in->np * (size_t)in->nc + 1) * sizeof *cv->fp);
  int k = 0;
  for (int c = 0; c < in->nc; c++) {
    cv->fo[c] = k;
    for (int p = 0; p < in->np; p++)
      if (live[p] && isfinite(cv->rmin[p]) && isfinite(LC_(cv, p, c))) cv->fp[k++] = p;
  }
  cv->fo[in->nc] = k;
}

static void cover_free(cover *cv) { free(cv->rmin), free(cv->cov), free(cv->lc), free(cv->fo), free(cv->fp); }

static int set_covers(const cover *cv, const int *set, int n, uint64_t *acc) {
  memset(acc, 0, (size_t)cv->words * sizeof *acc);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < cv->words; i++) acc[i] |= COV(cv, set[j])[i];
  int k = 0;
  for (int i = 0; i < cv->words; i++) k += __builtin_popcountll(acc[i]);
  return k;
}

/* A live shape's share of the cost swaps lower: log(ratio / Rmin) of the set's least ratio
 * there (the least of its kernels' LC_, the log being monotonic), a large constant where the
 * set has no kernel measured there. */
static double shape_cost(double lc) { return isfinite(lc) ? lc : 20.0; }

/* The sum over the live shapes of shape_cost of the set's least ratio there. */
static double set_cost(const cover *cv, const int *set, int n) {
  const sel_input *in = cv->in;
  double cost = 0;
  for (int p = 0; p < in->np; p++) {
    if (!cv->live[p] || !isfinite(cv->rmin[p])) continue;
    double m = INFINITY;
    for (int j = 0; j < n; j++) m = fmin(m, LC_(cv, p, set[j]));
    cost += shape_cost(m);
  }
  return cost;
}

/* Single swaps (a kernel of the set for one outside it) that keep the coverage (need shapes)
 * and lower set_cost, until none is left (at most 50 rounds). */
static void improve_swaps(const cover *cv, int *set, int n, int need, uint64_t *acc) {
  const sel_input *in = cv->in;
  double *mx = xmalloc((size_t)(n ? n : 1) * (size_t)(in->np ? in->np : 1) * sizeof *mx);
  double cost = set_cost(cv, set, n);
  for (int round = 0, better = 1; better && round < 50; round++) {
    better = 0;
    for (int j = 0; j < n; j++) /* mx[j][p]: the least LC_ on p of the set without its j-th */
      for (int p = 0; p < in->np; p++) {
        double m = INFINITY;
        for (int q = 0; q < n; q++)
          if (q != j) m = fmin(m, LC_(cv, p, set[q]));
        mx[(size_t)j * in->np + p] = m;
      }
    for (int j = 0; j < n && !better; j++) {
      const double *mj = mx + (size_t)j * in->np;
      double base = 0; /* the set's cost without its j-th */
      for (int p = 0; p < in->np; p++)
        if (cv->live[p] && isfinite(cv->rmin[p])) base += shape_cost(mj[p]);
      for (int c = 0; c < in->nc && !better; c++) {
        int in_set = 0;
        for (int q = 0; q < n && !in_set; q++) in_set = set[q] == c;
        if (in_set) continue;
        double c2 = base; /* with c in its place: only c's measured shapes change */
        for (int i = cv->fo[c]; i < cv->fo[c + 1]; i++) {
          int p = cv->fp[i];
          c2 += shape_cost(fmin(mj[p], LC_(cv, p, c))) - shape_cost(mj[p]);
        }
        if (c2 >= cost - 1e-9) continue;
        int save = set[j];
        set[j] = c;
        if (set_covers(cv, set, n, acc) >= need) cost = set_cost(cv, set, n), better = 1;
        else set[j] = save;
      }
    }
  }
  free(mx);
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* The smallest set covering `need` shapes among the distinct useful kernels, if they are few:
 * every subset of size k < n, in order, SELECT_EXACT_TRIES subsets at most over all k (the
 * leave-one-out runs this once per tuned shape: with a budget per k, 53 shapes and ~30 useful
 * kernels kept `cutune header` busy for minutes); 1 and set/n replaced when one is found. */
#define SELECT_EXACT_TRIES 300000.0
static int exact_smaller(const cover *cv, int *set, int *n, int need, uint64_t *acc) {
  const sel_input *in = cv->in;
  int *u = xmalloc((size_t)(in->nc ? in->nc : 1) * sizeof *u), nu = 0, found = 0;
  for (int c = 0; c < in->nc; c++) { /* distinct non-empty cover sets, no subset of another's */
    const uint64_t *a = COV(cv, c);
    int empty = 1, keep = 1;
    for (int i = 0; i < cv->words; i++) empty &= a[i] == 0;
    if (empty) continue;
    for (int j = 0; j < in->nc && keep; j++) {
      if (j == c) continue;
      const uint64_t *b = COV(cv, j);
      int sub = 1, same = 1;
      for (int i = 0; i < cv->words; i++) sub &= (a[i] & ~b[i]) == 0, same &= a[i] == b[i];
      if (sub && (!same || j < c)) keep = 0; /* dominated, or the same as a lower one */
    }
    if (keep) u[nu++] = c;
  }
  double left = SELECT_EXACT_TRIES;
  for (int k = 1; k < *n && nu <= SELECT_EXACT_MAX && !found; k++) {
    double combos = 1; /* C(nu, k), bounded */
    for (int i = 0; i < k; i++) combos = combos * (nu - i) / (i + 1);
    if (combos > left) break;
    left -= combos;
    int idx[64], pick[64];
    for (int i = 0; i < k; i++) idx[i] = i;
    while (!found) {
      for (int i = 0; i < k; i++) pick[i] = u[idx[i]];
      if (set_covers(cv, pick, k, acc) >= need) {
        memcpy(set, pick, (size_t)k * sizeof *set), *n = k, found = 1;
        break;
      }
      int i = k - 1;
      while (i >= 0 && idx[i] == nu - k + i) i--;
      if (i < 0) break;
      idx[i]++;
      for (int j = i + 1; j < k; j++) idx[j] = idx[j - 1] + 1;
    }
  }
  free(u);
  return found;
}

/* The set for the live shapes into set (at most in->maxk), its size returned. */
static int choose_set(const cover *cv, int *set) {
  const sel_input *in = cv->in;
  int w = cv->words, n = 0;
  uint64_t *unc = xcalloc((size_t)w, sizeof *unc), *acc = xcalloc((size_t)w, sizeof *acc);
  for (int p = 0; p < in->np; p++)
    if (cv->live[p] && isfinite(cv->rmin[p])) unc[p / 64] |= 1ULL << (p % 64);
  while (n < in->maxk) { /* greedy */
    int best = -1, bn = 0;
    double bcost = 0;
    for (int c = 0; c < in->nc; c++) {
      int k = popcount_and(COV(cv, c), unc, w);
      if (k == 0 || k < bn) continue;
      double cost = 0;
      for (int p = 0; p < in->np; p++)
        if ((unc[p / 64] >> (p % 64) & 1) && (COV(cv, c)[p / 64] >> (p % 64) & 1)) cost += LC_(cv, p, c);
      if (k > bn || cost < bcost - 1e-12) best = c, bn = k, bcost = cost;
    }
    if (best < 0) break;
    set[n++] = best;
    for (int i = 0; i < w; i++) unc[i] &= ~COV(cv, best)[i];
  }
  int need = set_covers(cv, set, n, acc);
  for (int j = n - 1; j >= 0 && n > 1; j--) { /* drop a kernel whose shapes the others cover */
    int save = set[j];
    memmove(set + j, set + j + 1, (size_t)(n - j - 1) * sizeof *set);
    if (set_covers(cv, set, n - 1, acc) >= need) {
      n--;
      continue;
    }
    memmove(set + j + 1, set + j, (size_t)(n - j - 1) * sizeof *set);
    set[j] = save;
  }
  if (n > 1) exact_smaller(cv, set, &n, need, acc);
  improve_swaps(cv, set, n, need, acc);
  qsort(set, (size_t)n, sizeof *set, cmp_int);
  free(unc), free(acc);
  return n;
}

/* Each live shape's fastest kernel of the set; the kernels assigned nowhere leave the set. */
static int assign(const cover *cv, int *set, int n, int *a) {
  const sel_input *in = cv->in;
  unsigned char *used = xcalloc((size_t)(n ? n : 1), 1);
  for (int p = 0; p < in->np; p++) {
    a[p] = -1;
    if (!cv->live[p]) continue;
    double m = INFINITY;
    for (int j = 0; j < n; j++)
      if (R_(in, p, set[j]) < m) m = R_(in, p, set[j]), a[p] = set[j];
    for (int j = 0; j < n; j++) used[j] |= a[p] == set[j];
  }
  int k = 0;
  for (int j = 0; j < n; j++)
    if (used[j]) set[k++] = set[j];
  free(used);
  return k;
}

int select_rule(const sel_input *in, const sel_result *r, const long long *q, int skip, int *near) {
  int k = r->knn > 0 ? r->knn : 1, nn[SELECT_K_MAX + 8], m = 0;
  if (k > SELECT_K_MAX + 8) k = SELECT_K_MAX + 8;
  double nd[SELECT_K_MAX + 8];
  for (int p = 0; p < in->np; p++) { /* the k nearest, ties to the lower index */
    if (p == skip || r->assign[p] < 0) continue;
    m = transfer_keep_nearest(nn, nd, m, k, p, select_distance(q, in->dims + (size_t)p * in->nv, in->nv));
  }
  if (m == 0) {
    if (near) *near = -1;
    return r->nset ? r->set[0] : -1;
  }
  int best = r->assign[nn[0]], fill = r->fill && in->fill;
  if (nd[0] == 1) m = 1, fill = 0; /* a tuned shape itself: its own kernel */
  if (m > 1 || fill) {
    double bs = INFINITY;
    for (int j = 0; j < r->nset; j++) {
      double sc = 0, fq = fill ? in->fill(in->fill_ctx, r->set[j], q) : 0;
      for (int i = 0; i < m; i++) {
        double v = R_(in, nn[i], r->set[j]), t = isfinite(v) ? v : SELECT_PENALTY;
        if (fq > 0 && isfinite(v)) { /* the fill term: as the header's selector computes it */
          double fp = in->fill(in->fill_ctx, r->set[j], in->dims + (size_t)nn[i] * in->nv);
          if (fp > 0) t = v * fp / fq;
        }
        sc += t;
      }
      if (sc < bs) bs = sc, best = r->set[j];
    }
  }
  if (near) {
    *near = -1;
    for (int i = 0; i < m && *near < 0; i++)
      if (r->assign[nn[i]] == best) *near = nn[i];
    double bd = INFINITY;
    if (*near < 0)
      for (int p = 0; p < in->np; p++) {
        if (p == skip || r->assign[p] != best) continue;
        double d = select_distance(q, in->dims + (size_t)p * in->nv, in->nv);
        if (d < bd) bd = d, *near = p;
      }
  }
  return best;
}

/* One full choice for the live shapes: set, assignment, coverage. */
static void choose(const sel_input *in, const unsigned char *live, sel_result *r) {
  cover cv;
  cover_init(&cv, in, live);
  r->set = xcalloc((size_t)(in->maxk > 0 ? in->maxk : 1) + 1, sizeof *r->set);
  r->assign = xcalloc((size_t)(in->np ? in->np : 1), sizeof *r->assign);
  r->nset = choose_set(&cv, r->set);
  r->nset = assign(&cv, r->set, r->nset, r->assign);
  r->covered = r->coverable = 0, r->worst = 1;
  for (int p = 0; p < in->np; p++) {
    if (!live[p] || !isfinite(cv.rmin[p])) continue;
    r->coverable++;
    double v = r->assign[p] >= 0 ? R_(in, p, r->assign[p]) / cv.rmin[p] : INFINITY;
    r->covered += v <= 1 + in->tol + 1e-12;
    if (v > r->worst) r->worst = v;
  }
  cover_free(&cv);
}

int select_kernels(const sel_input *in, sel_result *out) {
  memset(out, 0, sizeof *out);
  unsigned char *live = xmalloc((size_t)(in->np ? in->np : 1));
  memset(live, 1, (size_t)(in->np ? in->np : 1));
  choose(in, live, out);
  if (out->coverable == 0) {
    free(live);
    return -1;
  }
  /* leave-one-out: each shape left out, the set chosen again without it (or, past
   * SELECT_LOO_MAX shapes, the set kept), then the rule for every k */
  int kmax = in->knn > 0 ? in->knn : SELECT_K_MAX, kmin = in->knn > 0 ? in->knn : 1;
  int fmin_ = in->fill && in->use_fill > 0 ? 1 : 0, fmax_ = in->fill && in->use_fill != 0 ? 1 : 0;
  /* per (fill off/on, k): [FK(f, k)] */
#define FK(f, k) ((f) * (SELECT_K_MAX + 1) + (k))
  enum { NK = FK(2, 0) };
  double sum[NK] = {0}, worst[NK], geo[NK] = {0};
  int judged[NK] = {0}, within[NK] = {0};
  for (int k = 0; k < NK; k++) worst[k] = 1;
  out->loo_full = in->np <= SELECT_LOO_MAX;
  double *rmin = xmalloc((size_t)in->np * sizeof *rmin);
  for (int p = 0; p < in->np; p++) {
    double m = INFINITY;
    for (int c = 0; c < in->nc; c++) m = fmin(m, R_(in, p, c));
    rmin[p] = m;
  }
  for (int p = 0; p < in->np; p++) {
    if (!isfinite(rmin[p]) || out->coverable < 2) continue;
    sel_result lo;
    memset(&lo, 0, sizeof lo);
    if (out->loo_full) {
      live[p] = 0;
      choose(in, live, &lo);
      live[p] = 1;
    } else {
      lo = *out;
    }
    out->loo_n++;
    for (int f = fmin_; f <= fmax_; f++)
      for (int k = kmin; k <= kmax && k <= SELECT_K_MAX; k++) {
        int fk = FK(f, k);
        lo.knn = k, lo.fill = f;
        int c = select_rule(in, &lo, in->dims + (size_t)p * in->nv, p, NULL);
        double v = c >= 0 ? R_(in, p, c) : INFINITY;
        if (isfinite(v)) {
          double share = rmin[p] / v;
          judged[fk]++, geo[fk] += log(share), within[fk] += v <= rmin[p] * (1 + in->tol) + 1e-12;
          if (share < worst[fk]) worst[fk] = share;
          sum[fk] += log(v / rmin[p]);
        } else {
          sum[fk] += log(SELECT_PENALTY);
        }
      }
    if (out->loo_full) select_free(&lo);
  }
  /* The best (f, k) by the geometric mean; then, among those within SELECT_LOO_TIE of it (which
   * the shapes cannot tell apart), the simplest: fill off before on, then the largest k (the
   * rule that averages more neighbours varies less from one untuned size to the next). */
  int bk = FK(fmin_, kmin);
  for (int f = fmin_; f <= fmax_; f++)
    for (int k = kmin; k <= kmax && k <= SELECT_K_MAX; k++)
      if (sum[FK(f, k)] < sum[bk] - 1e-12) bk = FK(f, k);
  /* (no larger k than leave-one-out could try: with n shapes, n - 1 neighbours are left) */
  const double bound = sum[bk] + out->loo_n * log1p(SELECT_LOO_TIE) + 1e-12;
  int ktop = kmax < SELECT_K_MAX ? kmax : SELECT_K_MAX;
  if (ktop > out->coverable - 1) ktop = out->coverable - 1 > kmin ? out->coverable - 1 : kmin;
  for (int f = fmin_, done = 0; f <= fmax_ && !done; f++)
    for (int k = ktop; k >= kmin && !done; k--)
      if (sum[FK(f, k)] <= bound) bk = FK(f, k), done = 1;
#undef FK
  out->knn = bk % (SELECT_K_MAX + 1), out->fill = bk / (SELECT_K_MAX + 1);
  out->loo_judged = judged[bk], out->loo_within = within[bk];
  out->loo_geo = judged[bk] ? exp(geo[bk] / judged[bk]) : NAN;
  out->loo_worst = judged[bk] ? worst[bk] : NAN;
  free(rmin), free(live);
  return 0;
}

void select_free(sel_result *r) {
  if (!r) return;
  free(r->set), free(r->assign);
  r->set = r->assign = NULL;
}
