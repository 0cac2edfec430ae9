/* header: see header.h. This file chooses the entries; header_emit.c writes the text. */
#include "header.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "header_int.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static long find_str(char **v, size_t n, const char *s) {
  char **hit = bsearch(&s, v, n, sizeof *v, cmp_str);
  return hit ? (long)(hit - v) : -1;
}

/* Sorted unique copies of strings. */
static size_t uniq(char **v, size_t n) {
  qsort(v, n, sizeof *v, cmp_str);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (k && !strcmp(v[k - 1], v[i])) {
      free(v[i]);
      continue;
    }
    v[k++] = v[i];
  }
  return k;
}

/* "M=8192,N=8192" -> dims in the order of names; -1 when the key has other names. */
static int parse_problem(const char *key, int nv, char **names, long long *dims) {
  char *copy = xstrdup(key), *save = NULL;
  int k = 0, ok = 1;
  for (char *t = strtok_r(copy, ",", &save); t && ok; t = strtok_r(NULL, ",", &save), k++) {
    char *eq = strchr(t, '=');
    ok = eq && k < nv && !strncmp(t, names[k], (size_t)(eq - t)) && names[k][eq - t] == 0;
    if (ok) {
      char *end;
      dims[k] = strtoll(eq + 1, &end, 10);
      ok = *end == 0 && dims[k] > 0;
    }
  }
  free(copy);
  return ok && k == nv ? 0 : -1;
}

static const hdr *sort_ctx;
static int cmp_prob(const void *a, const void *b) {
  const long long *x = sort_ctx->dims + (size_t) * (const int *)a * sort_ctx->nv,
                  *y = sort_ctx->dims + (size_t) * (const int *)b * sort_ctx->nv;
  for (int k = 0; k < sort_ctx->nv; k++)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

void hdr_free(hdr *h) {
  for (int d = 0; d < h->nd; d++) free(h->devs[d]);
  for (size_t c = 0; c < h->nc; c++) free(h->cfgs[c]);
  for (int p = 0; p < h->np; p++) free(h->probs[p]);
  for (int k = 0; k < h->nv; k++) free(h->vars[k]);
  for (int i = 0; i < h->ne; i++) free(h->e[i].source);
  for (int g = 0; g < h->ngrp; g++) {
    hdr_group *G = &h->grp[g];
    free(G->mask), free(G->ps), free(G->cand), free(G->set), free(G->assign), free(G->R), free(G->dims);
    free(G->slots);
  }
  free(h->grp);
  free(h->devs), free(h->cc), free(h->src_of), free(h->cfgs), free(h->probs), free(h->vars), free(h->dims);
  free(h->t), free(h->r), free(h->best), free(h->bestc), free(h->e), free(h->ship), free(h->block);
  free(h->gstate), free(h->gtile), free(h->gmult);
}

int header_write(const ship_data *d, const header_opts *o, dbuf *out, dbuf *warn, cterr *err) {
  hdr h;
  memset(&h, 0, sizeof h);
  h.space = ship_space(d);
  h.mean = o->mean;
  h.grid = o->grid, h.grid_ctx = o->grid_ctx;
  int rc = -1;
  size_t n = ship_count(d), nok = 0;
  for (int q = 0; q < ship_nparams(d); q++)
    if (!hdr_ident_ok(ship_param(d, q)))
      return cterr_set(err, "parameter '%s' is not a C identifier", ship_param(d, q));
  /* devices, configurations, problems */
  char **devs = xcalloc(n + 1, sizeof(char *)), **cfgs = xcalloc(n + 1, sizeof(char *)),
       **probs = xcalloc(n + 1, sizeof(char *));
  for (size_t i = 0; i < n; i++) {
    const record *r = ship_get(d, i);
    if (!record_timed(r)) continue;
    devs[nok] = xstrdup(r->device_name ? r->device_name : "unknown device");
    cfgs[nok] = xstrdup(r->config), probs[nok] = xstrdup(r->problem);
    nok++;
  }
  if (!nok) {
    free(devs), free(cfgs), free(probs);
    return cterr_set(err, "no configuration ran successfully in any input: nothing to ship");
  }
  h.devs = devs, h.nd = (int)uniq(devs, nok);
  h.cfgs = cfgs, h.nc = uniq(cfgs, nok);
  h.probs = probs, h.np = (int)uniq(probs, nok);
  /* problem dimensions: the names of the first problem */
  {
    char *copy = xstrdup(h.probs[0]), *save = NULL;
    h.vars = xcalloc(16, sizeof(char *));
    for (char *t = strtok_r(copy, ",", &save); t && h.nv < 16; t = strtok_r(NULL, ",", &save)) {
      char *eq = strchr(t, '=');
      if (eq) *eq = 0;
      h.vars[h.nv++] = xstrdup(t);
    }
    free(copy);
    h.dims = xcalloc((size_t)h.np * h.nv, sizeof(long long));
    for (int p = 0; p < h.np; p++)
      if (parse_problem(h.probs[p], h.nv, h.vars, h.dims + (size_t)p * h.nv) < 0) {
        cterr_set(err, "problem '%s' does not have the dimensions of '%s' (one header needs one set of problem sizes)",
                  h.probs[p], h.probs[0]);
        goto done;
      }
    for (int k = 0; k < h.nv; k++)
      if (!hdr_ident_ok(h.vars[k])) {
        cterr_set(err, "problem dimension '%s' is not a C identifier", h.vars[k]);
        goto done;
      }
  }
  /* problems in numeric order of their dimensions */
  {
    int *ord = xcalloc((size_t)h.np, sizeof(int));
    for (int p = 0; p < h.np; p++) ord[p] = p;
    sort_ctx = &h;
    qsort(ord, (size_t)h.np, sizeof(int), cmp_prob);
    char **np2 = xcalloc((size_t)h.np, sizeof(char *));
    long long *nd2 = xcalloc((size_t)h.np * h.nv, sizeof(long long));
    for (int p = 0; p < h.np; p++) {
      np2[p] = h.probs[ord[p]];
      memcpy(nd2 + (size_t)p * h.nv, h.dims + (size_t)ord[p] * h.nv, (size_t)h.nv * sizeof(long long));
    }
    free(h.probs), free(h.dims), free(ord);
    h.probs = np2, h.dims = nd2;
  }
  size_t cells = (size_t)h.nd * h.np * h.nc;
  h.t = xmalloc(cells * sizeof(double));
  h.r = xcalloc(cells, sizeof(const record *));
  for (size_t i = 0; i < cells; i++) h.t[i] = INFINITY;
  h.cc = xcalloc((size_t)h.nd, sizeof(int));
  h.src_of = xcalloc((size_t)h.nd, sizeof(const char *));
  for (size_t i = 0; i < n; i++) {
    const record *r = ship_get(d, i);
    if (!record_timed(r)) continue;
    int dv = (int)find_str(h.devs, (size_t)h.nd, r->device_name ? r->device_name : "unknown device");
    int p = -1;
    for (int q = 0; q < h.np && p < 0; q++)
      if (!strcmp(h.probs[q], r->problem)) p = q;
    long c = find_str(h.cfgs, h.nc, r->config);
    size_t at = ((size_t)dv * h.np + p) * h.nc + (size_t)c;
    h.t[at] = r->t_median, h.r[at] = r;
    int cc = ship_cc_of(NULL, r->device_name, r->device_cc);
    if (cc) h.cc[dv] = cc;
    if (!h.src_of[dv]) h.src_of[dv] = ship_source(d, i);
  }
  for (int dv = 0; dv < h.nd; dv++)
    if (!h.cc[dv])
      dbuf_printf(warn,
                  "%s: compute capability unknown (not an NVIDIA name cutune knows; give --cc '%s=X.Y'): it gets "
                  "a device entry but no architecture entry\n",
                  h.devs[dv], h.devs[dv]);
  h.best = xmalloc((size_t)h.nd * h.np * sizeof(double));
  h.bestc = xmalloc((size_t)h.nd * h.np * sizeof(int));
  for (int dv = 0; dv < h.nd; dv++)
    for (int p = 0; p < h.np; p++) {
      double b = INFINITY;
      int bc = -1;
      for (size_t c = 0; c < h.nc; c++)
        if (TIME(&h, dv, p, c) < b) b = TIME(&h, dv, p, c), bc = (int)c;
      h.best[(size_t)dv * h.np + p] = b, h.bestc[(size_t)dv * h.np + p] = bc;
    }
  /* entries: devices, architectures (ascending), the default, each a small kernel set */
  if (hdr_select(&h, o, err) < 0) goto done;
  if (o->report) hdr_report_selection(o->report, &h, o->cover);
  for (int i = 0; i < o->nwhy && o->report; i++) {
    long long q[16];
    if (parse_problem(o->why[i], h.nv, h.vars, q) < 0) {
      dbuf nb;
      dbuf_init(&nb);
      for (int k = 0; k < h.nv; k++) dbuf_printf(&nb, "%s%s=...", k ? "," : "", h.vars[k]);
      cterr_set(err, "--why '%s': expected the sizes as a problem key, %s (the names sorted)", o->why[i], nb.data);
      dbuf_free(&nb);
      goto done;
    }
    dbuf_printf(o->report, "the rule for %s (not necessarily a tuned shape):\n", o->why[i]);
    hdr_why(o->report, &h, q);
  }
  rc = hdr_emit(&h, d, o, out, err);
done:
  hdr_free(&h);
  return rc;
}
