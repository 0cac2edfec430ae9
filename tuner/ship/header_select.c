/* header_select: the header's entries as small kernel sets (docs/HEADER.md, "Kernel selection").
 *
 * Level groups, in this order: each device (its own measurements), each architecture (the
 * portable choice over its devices), the portable default (over every device). For a group, the
 * ratio of kernel c on shape p is its time over the best there (one device), or, over several,
 * 1 / the worst (--rule mean: mean) of best_g / time_g over the devices that measured p, for
 * the kernels measured on as many of them as any kernel is (the old portable choice's rule).
 * select.c chooses the set, assigns each shape its fastest kernel of the set, and picks the
 * rule's k by leave-one-out; each shape becomes an entry with its kernel. The text parts: the
 * selection table of the comment (and the terminal), the ratio table the selector votes with,
 * and the selector itself (C99/C++, no libm), which chooses exactly what select_rule does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "header_int.h"
#include "select.h"

#define BEST(h, d, p) ((h)->best[(size_t)(d) * (h)->np + (size_t)(p)])

/* The share of configuration c on problem p over the devices in mask (worst or mean of
 * best / time over those that measured both), with how many of the devices measuring p it was
 * measured on (*cov) and how many measure p (*among). */
static double share_over(const hdr *h, const unsigned char *mask, int p, int c, int mean, int *cov, int *among) {
  double worst = INFINITY, sum = 0;
  *cov = *among = 0;
  for (int d = 0; d < h->nd; d++) {
    if (!mask[d] || !isfinite(BEST(h, d, p))) continue;
    (*among)++;
    double t = TIME(h, d, p, c);
    if (!isfinite(t)) continue;
    (*cov)++;
    double s = BEST(h, d, p) / t;
    sum += s, worst = s < worst ? s : worst;
  }
  return *cov ? (mean ? sum / *cov : worst) : 0;
}

/* The most devices of mask measuring p that any configuration was measured on. */
static int most_covered(const hdr *h, const unsigned char *mask, int p) {
  int maxcov = 0, among = 0;
  for (int d = 0; d < h->nd; d++) among += mask[d] && isfinite(BEST(h, d, p));
  for (size_t k = 0; k < h->nc && maxcov < among; k++) {
    int kc = 0;
    for (int d = 0; d < h->nd; d++) kc += mask[d] && isfinite(BEST(h, d, p)) && isfinite(TIME(h, d, p, k));
    if (kc > maxcov) maxcov = kc;
  }
  return maxcov;
}

static double ratio_at(const hdr *h, const unsigned char *mask, int p, int c, int maxcov) {
  int cov, among;
  double s = share_over(h, mask, p, c, h->mean, &cov, &among);
  return !cov || cov < maxcov ? INFINITY : select_round(1 / s);
}

double hdr_ratio(const hdr *h, int g, int p, int c) {
  return ratio_at(h, h->grp[g].mask, p, c, most_covered(h, h->grp[g].mask, p));
}

/* ---- the rule's fill term: a model of each kernel's grid (select.h, docs/HEADER.md) ---- */

#define GRID_SIZE_MAX (1LL << 24) /* a tile past this: the grid does not depend on that size */

/* A record of configuration c on any device, and its problem (*p). */
static const record *record_of(const hdr *h, size_t c, int *p) {
  for (int d = 0; d < h->nd; d++)
    for (int q = 0; q < h->np; q++)
      if (REC(h, d, q, c)) return *p = q, REC(h, d, q, c);
  return NULL;
}

static long long grid_at(hdr *h, const record *r, const long long *q) {
  long long b = -1;
  cterr e;
  if (h->grid(h->grid_ctx, r, h->nv, (const char *const *)h->vars, q, &b, &e) < 0) return -1;
  return b;
}

static long long model_blocks(int nv, const long long *tile, long long mult, const long long *q) {
  long long b = mult;
  for (int k = 0; k < nv; k++)
    if (tile[k] > 0) b *= q[k] > 0 ? (q[k] + tile[k] - 1) / tile[k] : 0;
  return b;
}

/* Fit blocks = mult x prod ceil(size / tile) to the space's grid: per size, the tile is where
 * the blocks first grow (the other sizes at a tuned shape's), searched by doubling and then
 * bisection; the model must then give the grid's blocks at every tuned shape and at 16 sizes
 * spread over 1 .. 2^16 in each dimension, or there is none. */
static int fit_grid(hdr *h, size_t c) {
  int p, nv = h->nv;
  const record *r = record_of(h, c, &p);
  if (!r || !h->grid || nv > 16) return -1;
  long long *tile = h->gtile + c * (size_t)nv, base[16], q[16];
  memcpy(base, h->dims + (size_t)p * nv, (size_t)nv * sizeof *base);
  for (int k = 0; k < nv; k++) {
    memcpy(q, base, sizeof q);
    q[k] = 1;
    long long g1 = grid_at(h, r, q), lo = 1, hi = 2, g = 0;
    if (g1 <= 0) return -1;
    for (; hi <= GRID_SIZE_MAX; lo = hi, hi *= 2) {
      q[k] = hi;
      if ((g = grid_at(h, r, q)) <= 0) return -1;
      if (g > g1) break;
    }
    if (hi > GRID_SIZE_MAX) {
      tile[k] = 0;
      continue;
    }
    while (hi - lo > 1) {
      q[k] = lo + (hi - lo) / 2;
      if ((g = grid_at(h, r, q)) <= 0) return -1;
      if (g > g1) hi = q[k];
      else lo = q[k];
    }
    tile[k] = lo;
  }
  long long one[16], gb = grid_at(h, r, base), per = model_blocks(nv, tile, 1, base);
  if (gb <= 0 || per <= 0 || gb % per) return -1;
  h->gmult[c] = gb / per;
  unsigned long long x = 0x9E3779B97F4A7C15ULL ^ c;
  for (int t = 0; t < h->np + 16; t++) {
    if (t < h->np) memcpy(one, h->dims + (size_t)t * nv, (size_t)nv * sizeof *one);
    else
      for (int k = 0; k < nv; k++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        one[k] = 1 + (long long)((x >> 33) % (1ULL << (1 + (x >> 20) % 16)));
      }
    if (grid_at(h, r, one) != model_blocks(nv, tile, h->gmult[c], one)) return -1;
  }
  return 1;
}

int hdr_grid_model(hdr *h, int c, const long long **tile, long long *mult) {
  if (!h->gstate) {
    h->gstate = xcalloc(h->nc + 1, 1);
    h->gtile = xcalloc(h->nc * (size_t)h->nv + 1, sizeof *h->gtile);
    h->gmult = xcalloc(h->nc + 1, sizeof *h->gmult);
  }
  if (!h->gstate[c]) h->gstate[c] = (signed char)fit_grid(h, (size_t)c);
  *tile = h->gtile + (size_t)c * h->nv, *mult = h->gmult[c];
  return h->gstate[c] > 0;
}

/* The most warps a multiprocessor holds, by compute capability. */
static int warps_per_sm(int cc) { return cc == 75 ? 32 : cc == 86 || cc == 87 || cc == 89 || cc / 10 == 12 ? 48 : 64; }

/* Block slots of configuration c on the devices of mask: SMs (the record's provenance, else the
 * table of names) x blocks per SM (from the record's occupancy and block size), the least over
 * the devices; 0 where one is unknown. */
static long long slots_of(const hdr *h, const unsigned char *mask, size_t c) {
  long long least = 0;
  for (int d = 0; d < h->nd; d++) {
    if (!mask[d]) continue;
    const record *r = NULL;
    for (int q = 0; q < h->np && !r; q++) r = REC(h, d, q, c);
    if (!r) continue;
    int sms = r->device_sms > 0 ? (int)r->device_sms : ship_sms_of(h->devs[d]), warps = (r->block_threads + 31) / 32;
    if (!sms || warps <= 0 || !(r->occupancy > 0) || !h->cc[d]) return 0;
    long long bps = (long long)floor(r->occupancy * warps_per_sm(h->cc[d]) / warps + 0.5);
    if (bps <= 0) return 0;
    if (!least || sms * bps < least) least = sms * bps;
  }
  return least;
}

/* fill(c, q) of select.h for group G's candidate j: blocks / (waves x slots), 0 without a model. */
static double hdr_fill(const hdr_group *G, int cfg, long long slots, const long long *q) {
  const long long *tile;
  long long mult;
  if (slots <= 0 || !hdr_grid_model(G->h, cfg, &tile, &mult)) return 0;
  long long b = model_blocks(G->h->nv, tile, mult, q);
  if (b <= 0) return 0;
  long long w = (b + slots - 1) / slots;
  return (double)b / ((double)w * (double)slots);
}

static double group_fill(void *ctx, int j, const long long *q) {
  const hdr_group *G = ctx;
  return hdr_fill(G, G->cand[j], G->slots[j], q);
}

long long hdr_slots(const hdr *h, int g, int c) {
  const hdr_group *G = &h->grp[g];
  for (int j = 0; j < G->nc; j++)
    if (G->cand[j] == c) return G->slots[j];
  return 0;
}

/* The entries of group g: its shapes, candidates and ratios to select.c, one entry per shape. */
static int select_group(hdr *h, int g, const header_opts *o, cterr *err) {
  hdr_group *G = &h->grp[g];
  int *ps = xcalloc((size_t)h->np + 1, sizeof *ps), np = 0, *cand = xcalloc(h->nc + 1, sizeof *cand), nc = 0;
  for (int p = 0; p < h->np; p++) {
    int any = 0;
    for (int d = 0; d < h->nd && !any; d++) any = G->mask[d] && isfinite(BEST(h, d, p));
    if (any) ps[np++] = p;
  }
  for (size_t c = 0; c < h->nc; c++) { /* kernels measured on some shape of the group */
    int any = 0;
    for (int i = 0; i < np && !any; i++)
      for (int d = 0; d < h->nd && !any; d++) any = G->mask[d] && isfinite(TIME(h, d, ps[i], c));
    if (any) cand[nc++] = (int)c;
  }
  double *R = xmalloc((size_t)(np ? np : 1) * (size_t)(nc ? nc : 1) * sizeof *R);
  long long *dims = xcalloc((size_t)np * (size_t)h->nv + 1, sizeof *dims);
  for (int i = 0; i < np; i++) {
    memcpy(dims + (size_t)i * h->nv, h->dims + (size_t)ps[i] * h->nv, (size_t)h->nv * sizeof *dims);
    int maxcov = most_covered(h, G->mask, ps[i]);
    for (int j = 0; j < nc; j++) R[(size_t)i * nc + j] = ratio_at(h, G->mask, ps[i], cand[j], maxcov);
  }
  G->h = h, G->cand = cand, G->nc = nc;
  G->slots = xcalloc((size_t)nc + 1, sizeof *G->slots);
  for (int j = 0; j < nc; j++) G->slots[j] = slots_of(h, G->mask, (size_t)cand[j]);
  sel_input in = {.np = np,
                  .nc = nc,
                  .nv = h->nv,
                  .R = R,
                  .dims = dims,
                  .tol = o->cover > 0 ? o->cover : 0.03,
                  .maxk = o->max_kernels > 0 ? o->max_kernels : 16,
                  .knn = o->knn,
                  .fill = h->grid && o->fill != 0 ? group_fill : NULL,
                  .fill_ctx = G,
                  .use_fill = o->fill};
  sel_result r;
  int rc = select_kernels(&in, &r);
  if (rc == 0) {
    G->nshapes = np, G->nset = r.nset, G->covered = r.covered, G->coverable = r.coverable, G->worst = r.worst;
    G->knn = r.knn, G->fill = r.fill, G->loo_full = r.loo_full, G->loo_n = r.loo_n, G->loo_judged = r.loo_judged;
    G->loo_within = r.loo_within, G->loo_geo = r.loo_geo, G->loo_worst = r.loo_worst;
    int single = -1, count = 0;
    for (int d = 0; d < h->nd; d++)
      if (G->mask[d]) single = d, count++;
    for (int i = 0; i < np; i++) {
      if (r.assign[i] < 0) continue;
      int p = ps[i], c = cand[r.assign[i]], cov, among;
      double sh = share_over(h, G->mask, p, c, h->mean, &cov, &among);
      char *src =
          count == 1 ? measured_source(h, single, p, c) : portable_source(h, G->mask, p, c, h->mean, sh, cov, among);
      hdr_entry *e = add_entry(h, G->level, G->level == 0 ? G->dev : -1, G->level == 0 ? h->cc[G->dev] : G->arch, p, c,
                               src, count == 1 ? TIME(h, single, p, c) : -1);
      e->share = 1 / R[(size_t)i * nc + r.assign[i]];
      e->group = g;
    }
  }
  /* kept for hdr_rule (the result's arrays move to the group) */
  G->ps = ps, G->cand = cand, G->nc = nc, G->R = R, G->dims = dims, G->set = r.set, G->assign = r.assign;
  if (rc != 0 || !r.set) G->nshapes = 0;
  (void)err;
  return 0;
}

/* The name of a group for tables and the selector's text. */
static void group_name(const hdr *h, const hdr_group *G, char *buf, size_t n) {
  if (G->level == 0) snprintf(buf, n, "%s", h->devs[G->dev]);
  else if (G->level == 1) snprintf(buf, n, "sm_%d (architecture)", G->arch);
  else snprintf(buf, n, "portable default");
}

int hdr_rule(const hdr *h, int g, const long long *q, int *near) {
  const hdr_group *G = &h->grp[g];
  *near = -1;
  if (!G->nshapes) return -1;
  sel_input in = {.np = G->nshapes,
                  .nc = G->nc,
                  .nv = h->nv,
                  .R = G->R,
                  .dims = G->dims,
                  .fill = h->grid ? group_fill : NULL,
                  .fill_ctx = (void *)G};
  sel_result r = {.set = G->set, .nset = G->nset, .assign = G->assign, .knn = G->knn, .fill = G->fill};
  int at = -1, c = select_rule(&in, &r, q, -1, &at);
  if (at >= 0) *near = G->ps[at];
  return c >= 0 ? G->cand[c] : -1;
}

void hdr_why(dbuf *b, const hdr *h, const long long *q) {
  for (int g = 0; g < h->ngrp; g++) {
    const hdr_group *G = &h->grp[g];
    int near, c = hdr_rule(h, g, q, &near);
    if (c < 0) continue;
    char name[160];
    group_name(h, G, name, sizeof name);
    dbuf_printf(b, "  %-28s %s, the kernel of the tuned shape %s (%.1f %% of the best there; k=%d%s)\n", name,
                h->cfgs[c], near >= 0 ? h->probs[near] : "?", near >= 0 ? 100 / hdr_ratio(h, g, near, c) : 0.0, G->knn,
                G->fill ? ", the fill term" : "");
  }
}

static void add_group(hdr *h, int level, int dev, int arch, const unsigned char *mask) {
  h->grp = xrealloc(h->grp, (size_t)(h->ngrp + 1) * sizeof *h->grp);
  hdr_group *G = &h->grp[h->ngrp++];
  memset(G, 0, sizeof *G);
  G->level = level, G->dev = dev, G->arch = arch;
  G->mask = xmalloc((size_t)h->nd + 1);
  memcpy(G->mask, mask, (size_t)h->nd);
}

int hdr_select(hdr *h, const header_opts *o, cterr *err) {
  unsigned char *mask = xcalloc((size_t)h->nd + 1, 1);
  for (int d = 0; d < h->nd; d++) {
    memset(mask, 0, (size_t)h->nd);
    mask[d] = 1;
    add_group(h, 0, d, h->cc[d], mask);
  }
  for (int arch = 1; arch < 1000; arch++) {
    int any = 0;
    for (int d = 0; d < h->nd; d++) mask[d] = h->cc[d] == arch, any |= mask[d];
    if (any) add_group(h, 1, -1, arch, mask);
  }
  memset(mask, 1, (size_t)h->nd);
  add_group(h, 2, -1, 0, mask);
  free(mask);
  for (int g = 0; g < h->ngrp; g++)
    if (select_group(h, g, o, err) < 0) return -1;
  return 0;
}

static void selection_table(dbuf *b, const hdr *h, const char *lead, double tol) {
  char wt[32];
  snprintf(wt, sizeof wt, "within %g %%", 100 * tol);
  dbuf_printf(b, "%s  %-28s %6s %7s %7s %7s %4s | %-16s %7s %7s %11s\n", lead, "level", "shapes", "kernels", "covered",
              "least", "rule", "left out: judged", "mean", "least", wt);
  for (int g = 0; g < h->ngrp; g++) {
    const hdr_group *G = &h->grp[g];
    if (!G->nshapes) continue;
    char name[160], cov[32], loo[128];
    group_name(h, G, name, sizeof name);
    snprintf(cov, sizeof cov, "%d/%d", G->covered, G->coverable);
    if (G->loo_n && G->loo_judged) {
      char j[32], w[32];
      snprintf(j, sizeof j, "%d/%d", G->loo_judged, G->loo_n);
      snprintf(w, sizeof w, "%d/%d", G->loo_within, G->loo_judged);
      snprintf(loo, sizeof loo, "%16s %5.1f %% %5.1f %% %11s%s", j, 100 * G->loo_geo, 100 * G->loo_worst, w,
               G->loo_full ? "" : " (the set kept)");
    } else if (G->loo_n) snprintf(loo, sizeof loo, "%16s (the rule's kernels were not measured there)", "0");
    else snprintf(loo, sizeof loo, "%16s (one shape: nothing to leave out)", "-");
    dbuf_printf(b, "%s  ", lead);
    hdr_comment_pad(b, name, 28); /* a device's name is data (header_text.c) */
    char rule[32];
    snprintf(rule, sizeof rule, "k=%d%s", G->knn, G->fill ? "+fill" : "");
    dbuf_printf(b, " %6d %7d %7s %5.1f %%  %s | %s\n", G->nshapes, G->nset, cov, 100 / G->worst, rule, loo);
  }
}

void hdr_emit_selection_comment(dbuf *b, const hdr *h, const header_opts *o) {
  double tol = o->cover > 0 ? o->cover : 0.03;
  int maxk = o->max_kernels > 0 ? o->max_kernels : 16;
  dbuf_printf(b,
              " * Kernel selection (cutune header --cover %g --max-kernels %d): per level (a GPU, an architecture,\n"
              " * the portable default) the fewest kernels, at most %d, that bring every tuned shape within\n"
              " * %g %% of the best measured there (greedy set cover, then dropping, an exhaustive search for a\n"
              " * smaller set and swaps); each tuned shape is an entry with the fastest of them. A size never\n"
              " * tuned gets the kernel of the set with the least sum of ratios (time / best) over the k tuned\n"
              " * shapes nearest to it (least product over the dimensions of max/min of asked and tuned, i.e.\n"
              " * sum of |ln(asked / tuned)|; a ratio not measured counts %g), k chosen by leave-one-out: each\n"
              " * tuned shape left out, the set chosen again without it and the rule applied to its sizes;\n"
              " * 'covered': shapes whose entry is within %g %% of their best; 'least': the least share of\n"
              " * a shape's best that its entry reaches; 'left out': the rule on each tuned shape left out,\n"
              " * 'judged' where its kernel was measured, 'mean' the geometric mean of best / time there,\n"
              " * 'least' the lowest, and how many came within %g %%.\n *\n",
              tol, maxk, maxk, 100 * tol, SELECT_PENALTY, 100 * tol, 100 * tol);
  selection_table(b, h, " *", tol);
  dbuf_puts(b, " *\n");
}

void hdr_report_selection(dbuf *b, const hdr *h, double tol) { selection_table(b, h, "", tol > 0 ? tol : 0.03); }

/* "K=%lld,M=%lld,N=%lld" for the problem variables (a format for the generated snprintf). */
static void dims_text(dbuf *b, const hdr *h) {
  for (int k = 0; k < h->nv; k++) dbuf_printf(b, "%s%s=%%lld", k ? "," : "", h->vars[k]);
}

/* The fill term as the selector computes it: the grid models of the shipped configurations and
 * their block slots per level group (select.h; the same integer arithmetic as hdr_fill). */
static void emit_fill(dbuf *b, hdr *h, const char *sid) {
  int ns = h->nship > 0 ? h->nship : 1, nv = h->nv, ng = h->ngrp > 0 ? h->ngrp : 1;
  dbuf_printf(b,
              "/* The rule's fill term: the share of the GPU's block slots shipped configuration ct_c keeps busy\n"
              " * over its waves at sizes ct_q, blocks / (waves x slots), its blocks the product over the sizes\n"
              " * of ceil(size / tile) (tile 0: a size its grid does not depend on) times a constant, fitted to\n"
              " * the space's grid function (0: the grid is not such a product), its slots the SMs of the GPU\n"
              " * times the blocks per SM of its occupancy (0: unknown). 0 means no fill term. */\n"
              "static inline double cutune_%s_fill_(int ct_g, int ct_c, const long long *ct_q) {\n"
              "  static const long long ct_t[%d][%d] = {",
              sid, ns, nv);
  dbuf mults;
  dbuf_init(&mults);
  for (int k = 0; k < h->nship; k++) { /* the tiles into b, the multipliers for ct_m */
    const long long *tile;
    long long mult;
    int ok = hdr_grid_model(h, h->ship[k], &tile, &mult);
    dbuf_puts(b, k ? ", {" : "{");
    for (int j = 0; j < nv; j++) dbuf_printf(b, "%s%lld", j ? ", " : "", ok ? tile[j] : 0LL);
    dbuf_puts(b, "}");
    dbuf_printf(&mults, "%s%lld", k ? ", " : "", ok ? mult : 0LL);
  }
  if (!h->nship) dbuf_puts(b, "{0}"), dbuf_puts(&mults, "0");
  dbuf_printf(b, "};\n  static const long long ct_m[%d] = {%s", ns, mults.data);
  dbuf_free(&mults);
  dbuf_printf(b, "};\n  static const long long ct_s[%d][%d] = {", ng, ns);
  for (int g = 0; g < h->ngrp; g++) {
    dbuf_puts(b, g ? ", {" : "{");
    for (int k = 0; k < h->nship; k++) dbuf_printf(b, "%s%lld", k ? ", " : "", hdr_slots(h, g, h->ship[k]));
    if (!h->nship) dbuf_puts(b, "0");
    dbuf_puts(b, "}");
  }
  if (!h->ngrp) dbuf_puts(b, "{0}");
  dbuf_printf(b,
              "};\n"
              "  long long ct_b = ct_m[ct_c], ct_w, ct_sl = ct_s[ct_g][ct_c];\n"
              "  int ct_k;\n"
              "  if (ct_b <= 0 || ct_sl <= 0) return 0;\n"
              "  for (ct_k = 0; ct_k < %d; ct_k++)\n"
              "    if (ct_t[ct_c][ct_k] > 0) ct_b *= ct_q[ct_k] > 0 ? (ct_q[ct_k] + ct_t[ct_c][ct_k] - 1) / "
              "ct_t[ct_c][ct_k] : 0;\n"
              "  if (ct_b <= 0) return 0;\n"
              "  ct_w = (ct_b + ct_sl - 1) / ct_sl;\n"
              "  return (double)ct_b / ((double)ct_w * (double)ct_sl);\n}\n\n",
              nv);
}

void hdr_emit_selector(dbuf *b, hdr *h, const char *sid, const char *SID) {
  emit_fill(b, h, sid);
  /* the ratio table: per entry, each shipped kernel's ratio at the entry's shape and level; the
   * levels of one GPU share their rows (a device, its architecture and the default hold the same
   * shapes and kernels), so each distinct row is written once and the entries index it */
  const int ne = h->ne > 0 ? h->ne : 1;
  char **rows = xcalloc((size_t)ne, sizeof *rows);
  int *row_of = xcalloc((size_t)ne, sizeof *row_of), nrows = 0;
  for (int i = 0; i < h->ne; i++) {
    dbuf r;
    dbuf_init(&r);
    for (int k = 0; k < h->nship; k++) {
      double v = hdr_ratio(h, h->e[i].group, h->e[i].p, h->ship[k]);
      dbuf_printf(&r, "%s%.4f", k ? ", " : "", isfinite(v) ? v : 0.0);
    }
    int j = 0;
    while (j < nrows && strcmp(rows[j], r.data ? r.data : "")) j++;
    if (j == nrows) rows[nrows++] = dbuf_steal(&r);
    else dbuf_free(&r);
    row_of[i] = j;
  }
  dbuf_printf(b,
              "/* Per entry, each shipped configuration's time there over the best at that level (1 = the best;\n"
              " * 0 = not measured): what cutune_%s_select sums over the nearest tuned shapes. Entries with\n"
              " * the same ratios (one GPU's levels) share a row of ct_r. */\n"
              "static inline double cutune_%s_ratio_(int ct_i, int ct_c) {\n"
              "  static const double ct_r[%d][%d] = {\n",
              sid, sid, nrows > 0 ? nrows : 1, h->nship > 0 ? h->nship : 1);
  for (int j = 0; j < nrows; j++) dbuf_printf(b, "    {%s},\n", rows[j]);
  if (!nrows) dbuf_puts(b, "    {0},\n");
  dbuf_printf(b, "  };\n  static const int ct_row[%d] = {", ne);
  for (int i = 0; i < h->ne; i++) dbuf_printf(b, "%s%s%d", i ? "," : "", i % 32 ? " " : "\n    ", row_of[i]);
  if (!h->ne) dbuf_puts(b, "0");
  dbuf_puts(b, "};\n  return ct_r[ct_row[ct_i]][ct_c];\n}\n\n");
  for (int j = 0; j < nrows; j++) free(rows[j]);
  free(rows), free(row_of);
  /* group membership */
  dbuf_printf(b,
              "/* Whether entry x belongs to the level group asked for. */\n"
              "static inline int cutune_%s_in_(const cutune_%s_entry *x, int ct_level, const char *device_name, int "
              "ct_arch) {\n"
              "  if (x->level != ct_level) return 0;\n"
              "  if (ct_level == 0) return device_name && strcmp(x->device, device_name) == 0;\n"
              "  return ct_level == 2 || x->arch == ct_arch;\n}\n\n",
              sid, sid);
  /* the rule */
  dbuf_printf(b,
              "/* The rule behind cutune_%s_select for the sizes ct_want: the level (device name, else\n"
              " * architecture, else the portable default), its knn tuned shapes nearest to ct_want, the\n"
              " * kernel of the level's set with the least sum of ratios over them (ties: the lower\n"
              " * configuration), and the entry it is matched to (the nearest of them with that kernel, else\n"
              " * the nearest entry of the level with it). Returns that entry's index; ct_near (room for 8,\n"
              " * may be NULL) gets the shapes consulted, nearest first, *ct_nnear their count. */\n",
              sid);
  dbuf_printf(
      b,
      "static inline int cutune_%s_pick_(const char *device_name, int cc_major, int cc_minor, const long long "
      "*ct_want,\n"
      "                                 int *ct_near, int *ct_nnear) {\n"
      "  int ct_n, ct_level, ct_lv = 2, ct_i, ct_k, ct_m = 0, ct_nn[8], ct_c, ct_best, ct_ret = -1, ct_voted = 0, "
      "ct_f, ct_g;\n"
      "  double ct_nd[8], ct_bs = 0, ct_bd = 0;\n"
      "  char ct_have[CUTUNE_%s_NCONFIGS + 1] = {0}; /* the kernels of the level's entries */\n"
      "  const cutune_%s_entry *e = cutune_%s_entries_(&ct_n);\n"
      "  const int ct_arch = 10 * cc_major + cc_minor;\n"
      "  for (ct_level = 0; ct_level < 3 && ct_m == 0; ct_level++)\n"
      "    for (ct_i = 0; ct_i < ct_n; ct_i++) {\n"
      "      double ct_dist = 1; /* product of max/min ratios: exp of the L1 distance of the logs */\n"
      "      int ct_pos, ct_kk = e[ct_i].knn < 1 ? 1 : e[ct_i].knn > 8 ? 8 : e[ct_i].knn;\n"
      "      if (!cutune_%s_in_(&e[ct_i], ct_level, device_name, ct_arch)) continue;\n"
      "      ct_lv = ct_level, ct_have[e[ct_i].config] = 1;\n"
      "      for (ct_k = 0; ct_k < %d; ct_k++) {\n"
      "        double ct_a = ct_want[ct_k] > 0 ? (double)ct_want[ct_k] : 1, ct_b = (double)e[ct_i].problem[ct_k];\n"
      "        ct_dist *= ct_a > ct_b ? ct_a / ct_b : ct_b / ct_a;\n"
      "      }\n"
      "      for (ct_pos = ct_m; ct_pos > 0 && ct_nd[ct_pos - 1] > ct_dist; ct_pos--) {}\n"
      "      if (ct_pos >= ct_kk) continue;\n"
      "      if (ct_m == ct_kk) ct_m--;\n"
      "      for (ct_k = ct_m; ct_k > ct_pos; ct_k--) ct_nn[ct_k] = ct_nn[ct_k - 1], ct_nd[ct_k] = ct_nd[ct_k - 1];\n"
      "      ct_nn[ct_pos] = ct_i, ct_nd[ct_pos] = ct_dist, ct_m++;\n"
      "    }\n"
      "  if (ct_m == 0) return 0;\n"
      "  ct_f = e[ct_nn[0]].fill, ct_g = e[ct_nn[0]].grp;\n"
      "  if (ct_nd[0] == 1) ct_m = 1, ct_f = 0; /* a tuned shape itself: its own entry */\n"
      "  ct_best = e[ct_nn[0]].config;\n"
      "  for (ct_c = 0; ct_c < CUTUNE_%s_NCONFIGS && (ct_m > 1 || ct_f); ct_c++) {\n"
      "    double ct_s = 0, ct_fq;\n"
      "    if (!ct_have[ct_c]) continue;\n"
      "    ct_fq = ct_f ? cutune_%s_fill_(ct_g, ct_c, ct_want) : 0;\n"
      "    for (ct_k = 0; ct_k < ct_m; ct_k++) {\n"
      "      double ct_r = cutune_%s_ratio_(ct_nn[ct_k], ct_c), ct_t = ct_r > 0 ? ct_r : %.1f, ct_fp;\n"
      "      if (ct_fq > 0 && ct_r > 0) { /* the fill term */\n"
      "        ct_fp = cutune_%s_fill_(ct_g, ct_c, e[ct_nn[ct_k]].problem);\n"
      "        if (ct_fp > 0) ct_t = ct_r * ct_fp / ct_fq;\n"
      "      }\n"
      "      ct_s += ct_t;\n"
      "    }\n"
      "    if (!ct_voted || ct_s < ct_bs) ct_bs = ct_s, ct_best = ct_c, ct_voted = 1;\n"
      "  }\n"
      "  for (ct_k = 0; ct_k < ct_m && ct_ret < 0; ct_k++)\n"
      "    if (e[ct_nn[ct_k]].config == ct_best) ct_ret = ct_nn[ct_k];\n",
      sid, SID, sid, sid, sid, h->nv, SID, sid, sid, SELECT_PENALTY, sid);
  dbuf_printf(
      b,
      "  if (ct_ret < 0) {\n"
      "    int ct_j = -1;\n"
      "    for (ct_i = 0; ct_i < ct_n; ct_i++) {\n"
      "      double ct_dist = 1;\n"
      "      if (e[ct_i].config != ct_best || !cutune_%s_in_(&e[ct_i], ct_lv, device_name, ct_arch)) continue;\n"
      "      for (ct_k = 0; ct_k < %d; ct_k++) {\n"
      "        double ct_a = ct_want[ct_k] > 0 ? (double)ct_want[ct_k] : 1, ct_b = (double)e[ct_i].problem[ct_k];\n"
      "        ct_dist *= ct_a > ct_b ? ct_a / ct_b : ct_b / ct_a;\n"
      "      }\n"
      "      if (ct_j < 0 || ct_dist < ct_bd) ct_j = ct_i, ct_bd = ct_dist;\n"
      "    }\n"
      "    ct_ret = ct_j < 0 ? ct_nn[0] : ct_j;\n"
      "  }\n"
      "  if (ct_nnear) *ct_nnear = ct_m;\n"
      "  for (ct_k = 0; ct_near && ct_k < ct_m; ct_k++) ct_near[ct_k] = ct_nn[ct_k];\n"
      "  return ct_ret;\n}\n\n",
      sid, h->nv);
  /* select */
  dbuf_printf(
      b,
      "/* The entry for a device (name and compute capability) and a problem; never NULL. */\n"
      "static inline const cutune_%s_entry *cutune_%s_select(const char *device_name, int cc_major, int cc_minor",
      sid, sid);
  for (int k = 0; k < h->nv; k++) dbuf_printf(b, ", long long %s", h->vars[k]);
  dbuf_printf(
      b, ") {\n  int ct_n;\n  const cutune_%s_entry *e = cutune_%s_entries_(&ct_n);\n  const long long ct_want[%d] = {",
      sid, sid, h->nv);
  for (int k = 0; k < h->nv; k++) dbuf_printf(b, "%s%s", k ? ", " : "", h->vars[k]);
  dbuf_printf(b, "};\n  return &e[cutune_%s_pick_(device_name, cc_major, cc_minor, ct_want, 0, 0)];\n}\n\n", sid);
  /* why */
  dbuf_printf(b,
              "/* Which kernel cutune_%s_select gives these sizes and why, as one line of text into ct_buf\n"
              " * (ct_len bytes, cut there); returns the shipped configuration. For describe functions. */\n"
              "static inline int cutune_%s_why(const char *device_name, int cc_major, int cc_minor",
              sid, sid);
  for (int k = 0; k < h->nv; k++) dbuf_printf(b, ", long long %s", h->vars[k]);
  dbuf_printf(b,
              ",\n                                char *ct_buf, int ct_len) {\n"
              "  int ct_n, ct_near[8], ct_nnear = 0, ct_i, ct_k, ct_o;\n"
              "  const cutune_%s_entry *e = cutune_%s_entries_(&ct_n), *ct_x;\n"
              "  const long long ct_want[%d] = {",
              sid, sid, h->nv);
  for (int k = 0; k < h->nv; k++) dbuf_printf(b, "%s%s", k ? ", " : "", h->vars[k]);
  dbuf_printf(b,
              "};\n  char ct_lv[64];\n"
              "  ct_i = cutune_%s_pick_(device_name, cc_major, cc_minor, ct_want, ct_near, &ct_nnear);\n"
              "  ct_x = &e[ct_i];\n"
              "  if (ct_x->level == 0) snprintf(ct_lv, sizeof ct_lv, \"%%s\", ct_x->device);\n"
              "  else if (ct_x->level == 1) snprintf(ct_lv, sizeof ct_lv, \"sm_%%d\", ct_x->arch);\n"
              "  else snprintf(ct_lv, sizeof ct_lv, \"the portable default\");\n"
              "  if (!ct_buf || ct_len <= 0) return ct_x->config;\n"
              "  ct_o = snprintf(ct_buf, (size_t)ct_len, \"configuration %%d (%%s's): the kernel of the tuned shape ",
              sid);
  dims_text(b, h);
  dbuf_printf(b,
              ", which runs at %%.1f %%%% of the best there (%%s); chosen by the sum of ratios%%s over the %%d "
              "nearest tuned shape%%s:\", ct_x->config,\n"
              "                  ct_lv");
  for (int k = 0; k < h->nv; k++) dbuf_printf(b, ", ct_x->problem[%d]", k);
  dbuf_printf(b,
              ", 100 * ct_x->share, ct_x->source,\n"
              "                  ct_x->fill ? \" (each scaled by the GPU's fill there over its fill at these sizes)\" "
              ": \"\", ct_nnear,\n"
              "                  ct_nnear == 1 ? \"\" : \"s\");\n"
              "  for (ct_k = 0; ct_k < ct_nnear && ct_o > 0 && ct_o < ct_len; ct_k++)\n"
              "    ct_o += snprintf(ct_buf + ct_o, (size_t)(ct_len - ct_o), \" ");
  dims_text(b, h);
  dbuf_printf(b, "\"");
  for (int k = 0; k < h->nv; k++) dbuf_printf(b, ", e[ct_near[ct_k]].problem[%d]", k);
  dbuf_printf(b, ");\n  return ct_x->config;\n}\n");
}
