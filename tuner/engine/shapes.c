/* shapes: the shape-set side of `cutune run` — the book of each shape's best kernels (a
 * transfer, search/transfer.h, fed from the store and the run's records), the tuning order,
 * the cross-measurement's candidates and the per-shape cost table. See shapes.h. */
#include "shapes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct shape_book {
  const space *s;
  job_ohashes *ohash;
  const char *thash;
  transfer *tx;
  int nv;
};

/* The family of a configuration: its options hash (configurations that differ only in runtime
 * parameters share one module, hence one family). */
static uint64_t family(const shape_book *b, size_t cfg) {
  uint64_t h = 1469598103934665603ULL;
  for (const char *p = job_ohash(b->ohash, cfg); *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
  return h;
}

static void dims_of(const space *s, int prob, int64_t *d, int nv) {
  for (int j = 0; j < nv; j++) {
    d[j] = 1;
    if (j < space_problem_nvars(s, prob)) space_problem_var(s, prob, j, &d[j]);
  }
}

void shapes_book_note(shape_book *b, int prob, size_t cfg, const record *r) {
  if (!b || prob < 0 || r->status != ST_OK || !isfinite(r->t_median)) return;
  transfer_note(b->tx, prob, cfg, family(b, cfg), r->t_median);
}

shape_book *shapes_book_new(const space *s, const store *st, const char *template_hash, job_ohashes *ohash) {
  shape_book *b = xcalloc(1, sizeof *b);
  b->s = s, b->ohash = ohash, b->thash = template_hash;
  b->nv = space_problem_nvars(s, 0);
  if (b->nv > 16) b->nv = 16;
  b->tx = transfer_new(b->nv);
  for (int p = 0; p < space_nproblems(s); p++) {
    int64_t d[16];
    dims_of(s, p, d, b->nv);
    transfer_shape(b->tx, p, d);
  }
  const configset *cs = space_configs(s);
  /* the check and launch hashes (record.h) are not asked: a record of another check or launch
   * still tells which kernels are fast on a shape, and the book only proposes (seeds, the cross
   * phase's candidates): each proposal is then answered from the store under the problem's own
   * check and the configuration's launch, or measured again */
  for (size_t i = 0; i < store_count(st); i++) { /* the newest record of a pair wins: later ones overwrite */
    const record *r = store_get(st, i);
    if (r->status != ST_OK || !r->template_hash || strcmp(r->template_hash, template_hash)) continue;
    int prob = space_problem_index(s, r->problem);
    if (prob < 0) continue;
    long cfg = configset_find_named(cs, r->nparams, r->pname, r->pvalue);
    if (cfg < 0 || !r->options_hash || strcmp(r->options_hash, job_ohash(ohash, (size_t)cfg))) continue;
    shapes_book_note(b, prob, (size_t)cfg, r);
  }
  return b;
}

void shapes_book_free(shape_book *b) {
  if (!b) return;
  transfer_free(b->tx);
  free(b);
}

int shapes_book_tuned(const shape_book *b, int prob) { return isfinite(transfer_best(b->tx, prob, NULL)); }

int shapes_book_seeds(const shape_book *b, int prob, int near, int per, size_t *out, int max, int *from, int *nfrom) {
  int64_t d[16];
  dims_of(b->s, prob, d, b->nv);
  return transfer_seeds(b->tx, prob, d, near, per, out, max, from, nfrom);
}

typedef struct cand {
  size_t cfg;
  int votes, rank;
} cand;

static int cmp_cand(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->votes != y->votes) return y->votes - x->votes;
  if (x->rank != y->rank) return x->rank - y->rank;
  return (x->cfg > y->cfg) - (x->cfg < y->cfg);
}

int shapes_cross_candidates(const shape_book *b, const int *probs, int n, int top, size_t *out, int max) {
  if (top > TRANSFER_KEEP) top = TRANSFER_KEEP;
  cand *c = xcalloc((size_t)n * (size_t)(top > 0 ? top : 1) + 1, sizeof *c);
  int nc = 0;
  for (int i = 0; i < n; i++) {
    size_t cfg[TRANSFER_KEEP];
    int k = transfer_top(b->tx, probs[i], cfg, NULL, top);
    for (int r = 0; r < k; r++) {
      int at = -1;
      for (int j = 0; j < nc && at < 0; j++)
        if (c[j].cfg == cfg[r]) at = j;
      if (at < 0) c[at = nc++] = (cand){cfg[r], 0, r};
      c[at].votes++;
      if (r < c[at].rank) c[at].rank = r;
    }
  }
  qsort(c, (size_t)nc, sizeof *c, cmp_cand);
  int k = nc < max ? nc : max;
  for (int j = 0; j < k; j++) out[j] = c[j].cfg;
  free(c);
  return k;
}

int shapes_order(const space *s, const char *sel, int nearest, int *out) {
  int ns = space_nproblems(s), nv = space_problem_nvars(s, 0), n = 0;
  if (nv > 16) nv = 16;
  int *map = xcalloc((size_t)ns + 1, sizeof *map);
  int64_t *d = xcalloc((size_t)ns * (size_t)nv + 1, sizeof *d);
  cterr e;
  for (int p = 0; p < ns; p++)
    if (space_select_match(s, sel, p, &e) == 1) dims_of(s, p, d + (size_t)n * nv, nv), map[n++] = p;
  if (nearest && n > 2) {
    int *ord = xcalloc((size_t)n, sizeof *ord);
    transfer_order(d, n, nv, NULL, ord);
    for (int i = 0; i < n; i++) out[i] = map[ord[i]];
    free(ord);
  } else {
    memcpy(out, map, (size_t)n * sizeof *out);
  }
  free(map), free(d);
  return n;
}

static void cost_row(FILE *f, const char *num, const char *shape, const shape_cost *c, const char *from) {
  char best[32] = "-", fig[32] = "";
  if (isfinite(c->best_ms)) snprintf(best, sizeof best, "%.4g", c->best_ms);
  if (isfinite(c->figure)) snprintf(fig, sizeof fig, c->flops ? "%.2f" : "%.0f", c->figure);
  fprintf(f, "%4s  %-26s %5d %9ld %8ld %7.1f %7.1f %10s %8s  %s\n", num, shape, c->seeds, c->measured, c->answered,
          c->gpu_s, c->wall_s, best, fig, from);
}

void shapes_summary(FILE *f, const space *s, const char *label, const shape_cost *rows, int n, const shape_cost *cross,
                    int ncandidates, int nshapes) {
  if (n <= 0 && !cross) return;
  int flops = n > 0 ? rows[0].flops : cross->flops;
  if (n > 0)
    fprintf(f,
            "\n== %s%s: %d shape%s, what each cost (transfer: the best kernels of the nearest shapes tuned "
            "before, measured first) ==\n",
            space_name(s), label, n, n == 1 ? "" : "s");
  else fprintf(f, "\n== %s%s: the cross-measurement, what it cost ==\n", space_name(s), label);
  fprintf(f, "%4s  %-26s %5s %9s %8s %7s %7s %10s %8s  %s\n", "#", "shape", "seeds", "measured", "answered", "GPU s",
          "wall s", "best ms", flops ? "TFLOP/s" : "GB/s", "best from (nearest tuned shapes)");
  long m = 0, a = 0, tail_m = 0, ntail = 0;
  double g = 0, w = 0, tail_w = 0;
  for (int i = 0; i < n; i++) {
    const shape_cost *c = &rows[i];
    char num[16], from[320];
    snprintf(num, sizeof num, "%d", i + 1);
    int k = snprintf(from, sizeof from, "%s",
                     c->seeds == 0    ? "the search (cold)"
                     : c->best_seeded ? "a seed"
                                      : "the search");
    if (c->stalled) k += snprintf(from + k, sizeof from - (size_t)k, ", stalled");
    for (int j = 0; j < c->nfrom && j < 3 && k < (int)sizeof from; j++)
      k += snprintf(from + k, sizeof from - (size_t)k, "%s%s", j ? " " : " (", space_problem_key(s, c->from[j]));
    if (c->nfrom && k < (int)sizeof from) snprintf(from + k, sizeof from - (size_t)k, ")");
    cost_row(f, num, space_problem_key(s, c->prob), c, from);
    m += c->measured, a += c->answered, g += c->gpu_s, w += c->wall_s;
    if (i >= n / 2 && n > 1) tail_m += c->measured, tail_w += c->wall_s, ntail++;
  }
  if (cross) {
    char what[64];
    snprintf(what, sizeof what, "%d kernels x %d", ncandidates, nshapes);
    cost_row(f, "cross", what, cross, "every shape's best few kernels on every shape, for cutune header");
    m += cross->measured, a += cross->answered, g += cross->gpu_s, w += cross->wall_s;
  }
  fprintf(f, "total: %ld configurations measured, %ld answered from the store, %.1f GPU s, %.1f s", m, a, g, w);
  if (ntail)
    fprintf(f, "; the first shape %ld measured in %.1f s, the last %ld shapes %.0f measured in %.1f s each on average",
            rows[0].measured, rows[0].wall_s, ntail, (double)tail_m / ntail, tail_w / ntail);
  fprintf(f, "\n");
}
