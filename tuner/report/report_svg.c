/* report_svg: inline SVG figures (see report_svg.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_svg.h"

void html_esc(dbuf *b, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
    case '&': dbuf_puts(b, "&amp;"); break;
    case '<': dbuf_puts(b, "&lt;"); break;
    case '>': dbuf_puts(b, "&gt;"); break;
    case '"': dbuf_puts(b, "&quot;"); break;
    default: dbuf_append(b, s, 1);
    }
  }
}

#define W 720
#define H 300
#define ML 70
#define MR 20
#define MT 14
#define MB 54

typedef struct axis {
  double lo, hi;
  int log;
  double p0, p1; /* pixels */
} axis;

static double ax_px(const axis *a, double v) {
  double t = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) : (v - a->lo) / (a->hi - a->lo);
  return a->p0 + t * (a->p1 - a->p0);
}

static void ax_fit(axis *a, const double *v, size_t n, int logscale) {
  a->lo = INFINITY, a->hi = -INFINITY, a->log = logscale;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(v[i]) || (logscale && v[i] <= 0)) continue;
    if (v[i] < a->lo) a->lo = v[i];
    if (v[i] > a->hi) a->hi = v[i];
  }
  if (!isfinite(a->lo)) a->lo = 1, a->hi = 10;
  if (logscale) {
    a->lo /= 1.15, a->hi *= 1.15;
    if (a->hi / a->lo < 2) a->lo /= 1.5, a->hi *= 1.5;
  } else {
    double pad = (a->hi - a->lo) * 0.05;
    if (pad <= 0) pad = fabs(a->hi) * 0.1 + 1;
    a->lo -= pad, a->hi += pad;
    if (a->lo < 0 && a->hi > 0 && -a->lo < a->hi * 0.1) a->lo = 0;
  }
}

/* A tick label: whole numbers as they are up to 10^7 (12000, not 1e+04, whose neighbours would
 * read the same), others with 4 significant digits (100.2 beside 100.4) */
static void fmt_num(char *c, size_t n, double v) {
  double a = fabs(v);
  if (a >= 1e7 || (a > 0 && a < 1e-2)) snprintf(c, n, "%.2g", v);
  else if (v == floor(v)) snprintf(c, n, "%.0f", v);
  else snprintf(c, n, "%.4g", v);
}

/* y axis: ticks, grid lines and the label; x label at the bottom */
static void axes(dbuf *b, const axis *y, const char *ylabel, const char *xlabel) {
  dbuf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>", ML, MT, ML, H - MB);
  dbuf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"ax\"/>", ML, H - MB, W - MR, H - MB);
  double ticks[64];
  int nt = 0;
  if (y->log) {
    for (int e = (int)floor(log10(y->lo)); e <= (int)ceil(log10(y->hi)) && nt < 60; e++)
      for (int m = 0; m < 3 && nt < 60; m++) {
        double v = (m == 0 ? 1 : m == 1 ? 2 : 5) * pow(10, e);
        if (v >= y->lo && v <= y->hi) ticks[nt++] = v;
      }
  } else {
    double step = pow(10, floor(log10((y->hi - y->lo) / 5)));
    if ((y->hi - y->lo) / step > 10) step *= 2;
    for (double v = ceil(y->lo / step) * step; v <= y->hi && nt < 60; v += step) ticks[nt++] = v;
  }
  for (int i = 0; i < nt; i++) {
    double py = ax_px(y, ticks[i]);
    char c[32];
    fmt_num(c, sizeof c, ticks[i]);
    dbuf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>", ML, py, W - MR, py);
    dbuf_printf(b, "<text x=\"%d\" y=\"%.1f\" class=\"tk\" text-anchor=\"end\">%s</text>", ML - 6, py + 4, c);
  }
  dbuf_printf(b, "<text x=\"14\" y=\"%d\" class=\"lb\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">",
              (MT + H - MB) / 2, (MT + H - MB) / 2);
  html_esc(b, ylabel);
  dbuf_puts(b, "</text>");
  if (xlabel) {
    dbuf_printf(b, "<text x=\"%d\" y=\"%d\" class=\"lb\" text-anchor=\"middle\">", (ML + W - MR) / 2, H - 10);
    html_esc(b, xlabel);
    dbuf_puts(b, "</text>");
  }
}

static void svg_open(dbuf *b, const char *id) {
  dbuf_printf(b,
              "<svg id=\"%s\" class=\"fig\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
              "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">",
              id, W, H, W, H);
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double quant(const double *s, size_t n, double q) {
  double pos = q * (double)(n - 1);
  size_t i = (size_t)pos;
  double f = pos - (double)i;
  return i + 1 < n ? s[i] * (1 - f) + s[i + 1] * f : s[i];
}

void svg_boxes(dbuf *b, const char *id, const char *ylabel, const char *const *cats, int ncats, double *const *vals,
               const size_t *nvals) {
  size_t tot = 0;
  for (int c = 0; c < ncats; c++) tot += nvals[c];
  double *all = xmalloc((tot ? tot : 1) * sizeof *all);
  size_t k = 0;
  for (int c = 0; c < ncats; c++)
    for (size_t i = 0; i < nvals[c]; i++) all[k++] = vals[c][i];
  axis y = {.p0 = H - MB, .p1 = MT};
  ax_fit(&y, all, k, 1);
  free(all);
  svg_open(b, id);
  axes(b, &y, ylabel, NULL);
  double slot = (double)(W - ML - MR) / (ncats ? ncats : 1), bw = slot * 0.45 < 60 ? slot * 0.45 : 60;
  for (int c = 0; c < ncats; c++) {
    double cx = ML + slot * (c + 0.5);
    size_t n = 0;
    double *s = xmalloc((nvals[c] ? nvals[c] : 1) * sizeof *s);
    for (size_t i = 0; i < nvals[c]; i++)
      if (isfinite(vals[c][i]) && vals[c][i] > 0) s[n++] = vals[c][i];
    qsort(s, n, sizeof *s, cmpd);
    dbuf_printf(b, "<text x=\"%.1f\" y=\"%d\" class=\"tk\" text-anchor=\"middle\">", cx, H - MB + 16);
    html_esc(b, cats[c]);
    dbuf_printf(b, "</text><text x=\"%.1f\" y=\"%d\" class=\"tk dim\" text-anchor=\"middle\">n=%zu</text>", cx,
                H - MB + 30, n);
    if (n) {
      double q0 = s[0], q1 = quant(s, n, .25), q2 = quant(s, n, .5), q3 = quant(s, n, .75), q4 = s[n - 1];
      dbuf_printf(b, "<g class=\"box\"><title>");
      html_esc(b, cats[c]);
      dbuf_printf(b, ": best %.1f, quartiles %.1f / %.1f / %.1f, worst %.1f (%zu configurations)</title>", q0, q1, q2,
                  q3, q4, n);
      dbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"wh\"/>", cx, ax_px(&y, q0), cx,
                  ax_px(&y, q4));
      dbuf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"bx\"/>", cx - bw / 2,
                  ax_px(&y, q3), bw, ax_px(&y, q1) - ax_px(&y, q3) + 0.5);
      dbuf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"md\"/>", cx - bw / 2, ax_px(&y, q2),
                  cx + bw / 2, ax_px(&y, q2));
      dbuf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" class=\"best\"/></g>", cx, ax_px(&y, q0));
    }
    free(s);
  }
  dbuf_puts(b, "</svg>");
}

void svg_steps(dbuf *b, const char *id, const char *xlabel, const char *ylabel, const double *x, const double *y,
               size_t n) {
  axis ax = {.p0 = ML, .p1 = W - MR}, ay = {.p0 = H - MB, .p1 = MT};
  ax_fit(&ax, x, n, 0);
  /* The y axis spans the best-so-far curve itself from a twentieth of the way in (at least the
   * tenth evaluation) down to its end, not every time recorded: fitted to the slowest
   * configurations, or to the first guesses, the curve drops at once and then lies flat along
   * the floor. What starts above is drawn at the top edge. */
  double span[2] = {NAN, NAN}, best = INFINITY, first = NAN;
  size_t seen = 0, want = n / 20 > 10 ? n / 20 : 10;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(x[i]) || !isfinite(y[i]) || y[i] <= 0) continue;
    if (y[i] < best) best = y[i];
    if (isnan(first)) first = best;
    if (++seen <= want || isnan(span[0])) span[0] = best;
  }
  span[1] = best;
  if (isfinite(span[0]) && span[0] < span[1] * 1.02) span[0] = span[1] * 1.02;
  /* a narrow span reads better on a linear axis: a log axis that narrow has no 1-2-5 ticks */
  ax_fit(&ay, span, 2, isfinite(span[0]) && span[0] > 3 * span[1]);
  svg_open(b, id);
  axes(b, &ay, ylabel, xlabel);
  /* x ticks */
  double step = pow(10, floor(log10((ax.hi - ax.lo) / 5 > 0 ? (ax.hi - ax.lo) / 5 : 1)));
  if ((ax.hi - ax.lo) / step > 10) step *= 2;
  for (double v = ceil(ax.lo / step) * step; v <= ax.hi; v += step) {
    char c[32];
    fmt_num(c, sizeof c, v);
    dbuf_printf(b, "<text x=\"%.1f\" y=\"%d\" class=\"tk\" text-anchor=\"middle\">%s</text>", ax_px(&ax, v),
                H - MB + 16, c);
  }
  if (isfinite(first) && first > ay.hi) {
    char c[32];
    fmt_num(c, sizeof c, first);
    dbuf_printf(b,
                "<text x=\"%d\" y=\"%d\" class=\"tk\" text-anchor=\"end\">from %s at the first, above the top</text>",
                W - MR - 4, MT + 12, c);
  }
  dbuf_puts(b, "<polyline class=\"curve\" points=\"");
  double px = NAN;
  best = INFINITY;
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(x[i]) || !isfinite(y[i]) || y[i] <= 0 || !(y[i] < best)) continue;
    if (isfinite(px)) dbuf_printf(b, "%.1f,%.1f ", ax_px(&ax, x[i]), ax_px(&ay, fmin(best, ay.hi)));
    best = y[i];
    px = x[i];
    dbuf_printf(b, "%.1f,%.1f ", ax_px(&ax, x[i]), ax_px(&ay, fmin(best, ay.hi)));
  }
  if (isfinite(px)) dbuf_printf(b, "%.1f,%.1f", ax_px(&ax, ax.hi), ax_px(&ay, best));
  dbuf_puts(b, "\"/></svg>");
}

void svg_front(dbuf *b, const char *id, const char *xlabel, const char *ylabel, const double *x, const double *y,
               size_t n) {
  axis ax = {.p0 = ML, .p1 = W - MR}, ay = {.p0 = H - MB, .p1 = MT};
  ax_fit(&ax, x, n, 1);
  ax_fit(&ay, y, n, 0);
  svg_open(b, id);
  axes(b, &ay, ylabel, xlabel);
  size_t *ord = xmalloc((n ? n : 1) * sizeof *ord), m = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(x[i]) && isfinite(y[i]) && x[i] > 0) {
      dbuf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" class=\"pt\"/>", ax_px(&ax, x[i]), ax_px(&ay, y[i]));
      ord[m++] = i;
    }
  /* the non-dominated points, by increasing x */
  for (size_t i = 1; i < m; i++)
    for (size_t j = i; j > 0 && x[ord[j]] < x[ord[j - 1]]; j--) {
      size_t t = ord[j];
      ord[j] = ord[j - 1], ord[j - 1] = t;
    }
  dbuf_puts(b, "<polyline class=\"curve\" points=\"");
  double besty = INFINITY;
  for (size_t i = 0; i < m; i++) {
    size_t k = ord[i];
    if (!(y[k] < besty)) continue;
    if (isfinite(besty)) dbuf_printf(b, "%.1f,%.1f ", ax_px(&ax, x[k]), ax_px(&ay, besty));
    besty = y[k];
    dbuf_printf(b, "%.1f,%.1f ", ax_px(&ax, x[k]), ax_px(&ay, besty));
  }
  dbuf_puts(b, "\"/></svg>");
  free(ord);
}
