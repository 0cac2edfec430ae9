/* replay_cutune: cutune's own results files (results/<device>/<space>.jsonl) as a replay.
 *
 * The records come from store_load (read-only, no lock, torn lines tolerated). The newest
 * record of a configuration wins. Parameter values are ordered numerically when all are numbers (so "adjacent" means
 * something), else by first appearance. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay_impl.h"
#include "store/store.h"

static int cmp_num(const void *a, const void *b) {
  double x = strtod(*(char *const *)a, NULL), y = strtod(*(char *const *)b, NULL);
  return (x > y) - (x < y);
}

static int is_number(const char *s) {
  char *end;
  strtod(s, &end);
  return *s && !*end;
}

int replay_load_cutune(const char *path, const char *problem, replay **out, cterr *err) {
  record *recs = NULL;
  size_t n = 0;
  store *st = NULL;
  dbuf warnings;
  dbuf_init(&warnings);
  if (store_load(path, &st, &warnings, err) < 0) {
    dbuf_free(&warnings);
    return -1;
  }
  n = store_count(st);
  recs = xcalloc(n ? n : 1, sizeof(record));
  for (size_t i = 0; i < n; i++) record_copy(&recs[i], store_get(st, i));
  store_close(st);
  int rc = -1;
  configset *cs = configset_new();
  const char *prob = problem;
  if (!n) {
    if (warnings.len) /* nothing but malformed lines: say what the first one was */
      cterr_set(err, "%s: no records; %.*s", path, (int)strcspn(warnings.data, "\n"), warnings.data);
    else cterr_set(err, "%s: no records", path);
    goto done;
  }
  if (!prob) prob = recs[0].problem ? recs[0].problem : "";
  size_t nsel = 0;
  for (size_t i = 0; i < n; i++) nsel += !strcmp(recs[i].problem ? recs[i].problem : "", prob);
  if (!nsel) {
    cterr_set(err, "%s: no records for problem '%s' (the first record's problem is '%s')", path, prob,
              recs[0].problem ? recs[0].problem : "");
    goto done;
  }
  /* parameters: the first record's, in its order; values gathered over the selected records */
  const record *r0 = &recs[0];
  int np = r0->nparams;
  for (int p = 0; p < np; p++) {
    char **vals = NULL;
    int nv = 0, allnum = 1;
    for (size_t i = 0; i < n; i++) {
      const record *r = &recs[i];
      if (strcmp(r->problem ? r->problem : "", prob)) continue;
      const char *v = NULL;
      for (int q = 0; q < r->nparams; q++)
        if (!strcmp(r->pname[q], r0->pname[p])) v = r->pvalue[q];
      if (!v) {
        cterr_set(err, "%s: record %zu has no parameter '%s'", path, i + 1, r0->pname[p]);
        free(vals);
        goto done;
      }
      int seen = 0;
      for (int k = 0; k < nv && !seen; k++) seen = !strcmp(vals[k], v);
      if (!seen) vals = xrealloc(vals, (size_t)(nv + 1) * sizeof(char *)), vals[nv++] = (char *)v;
      allnum = allnum && is_number(v);
    }
    if (allnum) qsort(vals, (size_t)nv, sizeof(char *), cmp_num);
    int rcp = configset_add_param(cs, r0->pname[p], nv, (const char *const *)vals, NULL, err);
    free(vals);
    if (rcp < 0) {
      cterr_wrap(err, "%s", path);
      goto done;
    }
  }
  replay *rp = replay_alloc(nsel);
  rp->own_cs = cs, rp->cs = cs;
  rp->title = xstrdup(path_basename(path));
  rp->problem = xstrdup(prob);
  cs = NULL;
  for (const char *w = warnings.data; w && *w;) { /* the store's "file:line: not a cutune record" */
    const char *nl = strchr(w, '\n');
    int len = nl ? (int)(nl - w) : (int)strlen(w);
    replay_warn(rp, "%.*s", len, w);
    w += len + (nl ? 1 : 0);
  }
  for (size_t i = 0; i < n; i++) { /* file order: a later record of a configuration replaces it */
    const record *r = &recs[i];
    if (strcmp(r->problem ? r->problem : "", prob)) continue;
    uint16_t row[CS_MAX_PARAMS];
    for (int p = 0; p < np; p++) {
      const cs_param *pp = configset_param(rp->cs, p);
      const char *v = "";
      for (int q = 0; q < r->nparams; q++)
        if (!strcmp(r->pname[q], pp->name)) v = r->pvalue[q];
      for (int k = 0; k < pp->nvalues; k++)
        if (!strcmp(pp->str[k], v)) row[p] = (uint16_t)k;
    }
    size_t idx = configset_add(rp->own_cs, row);
    double cms = r->compile_ms;
    if (r->status == ST_OK && !record_timed(r)) {
      replay_warn(rp, "%s: record %zu (%s): time %g is not a positive time; counted as failed (runtime_fault)", path,
                  i + 1, r->config ? r->config : "?", r->t_median);
      replay_set(rp, idx, ST_RUNTIME_FAULT, INFINITY, cms, 0, NULL, 0);
      continue;
    }
    replay_set(rp, idx, r->status, r->t_median, cms, record_cost_ms(r) / 1000.0, NULL, 0);
  }
  replay_finish(rp);
  *out = rp;
  rc = 0;
done:
  configset_free(cs);
  for (size_t i = 0; i < n; i++) record_free(&recs[i]);
  free(recs);
  dbuf_free(&warnings);
  return rc;
}
