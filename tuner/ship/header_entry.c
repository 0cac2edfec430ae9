/* header_entry: the header's entries and the text of where each came from (header_int.h), shared
 * by header.c (the choice) and header_select.c (the kernel sets), so that neither calls back into
 * the other. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "header_int.h"

hdr_entry *add_entry(hdr *h, int level, int dev, int arch, int p, int cfg, char *source, double t) {
  h->e = xrealloc(h->e, (size_t)(h->ne + 1) * sizeof *h->e);
  hdr_entry *x = &h->e[h->ne++];
  x->level = level, x->dev = dev, x->arch = arch, x->p = p, x->cfg = cfg, x->source = source, x->time = t;
  return x;
}

static char *date_of(const record *r) {
  return xasprintf("%.10s", r->timestamp && *r->timestamp ? r->timestamp : "undated");
}

char *measured_source(const hdr *h, int d, int p, int c) {
  const record *r = REC(h, d, p, c);
  char *date = date_of(r), *s;
  /* a space that gives flops is judged by its FLOP rate, one that gives only bytes by its copy share */
  if (isfinite(r->gflops) && r->gflops >= 1000)
    s = xasprintf("%s, %s, %.4g ms, %.2f TFLOP/s", h->devs[d], date, r->t_median, r->gflops / 1000);
  else if (isfinite(r->gflops))
    s = xasprintf("%s, %s, %.4g ms, %.4g GFLOP/s", h->devs[d], date, r->t_median, r->gflops);
  else if (isfinite(r->copy_share))
    s = xasprintf("%s, %s, %.4g ms, %.1f %% of the copy bandwidth", h->devs[d], date, r->t_median, 100 * r->copy_share);
  else s = xasprintf("%s, %s, %.4g ms (%s)", h->devs[d], date, r->t_median, path_basename(h->src_of[d]));
  free(date);
  return s;
}

char *portable_source(const hdr *h, const unsigned char *mask, int p, int c, int mean, double score, int cov,
                      int among) {
  dbuf b;
  dbuf_init(&b);
  dbuf_printf(&b, "portable over");
  int k = 0, worstd = -1;
  double worst = INFINITY;
  for (int d = 0; d < h->nd; d++) {
    if (!mask[d] || !isfinite(h->best[(size_t)d * h->np + p])) continue;
    dbuf_printf(&b, "%s %s", k++ ? "," : "", h->devs[d]);
    double t = TIME(h, d, p, c);
    if (isfinite(t) && h->best[(size_t)d * h->np + p] / t < worst)
      worst = h->best[(size_t)d * h->np + p] / t, worstd = d;
  }
  dbuf_printf(&b, ": %s %.1f %% of each GPU's own best", mean ? "mean" : "worst", 100 * score);
  if (!mean && worstd >= 0) dbuf_printf(&b, " (%s)", h->devs[worstd]);
  if (cov < among) dbuf_printf(&b, "; measured on %d of the %d GPUs only", cov, among);
  return dbuf_steal(&b);
}
