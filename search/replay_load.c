/* replay_load: replay_load and replay_load_for (replay.h) — the format of a recorded file by
 * its name and content, Kernel Tuner caches read here, cutune stores by replay_cutune.c, and the
 * mapping of a file's configurations onto a space's configset. */
#include "replay.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay_impl.h"

/* ---- Kernel Tuner cache files ---- */

/* A parameter value as text: integers plainly, reals shortest, strings as they are. */
static char *json_value_text(json_t *v, double *num) {
  *num = NAN;
  if (json_is_integer(v)) {
    *num = (double)json_integer_value(v);
    return xasprintf("%lld", (long long)json_integer_value(v));
  }
  if (json_is_real(v)) {
    *num = json_real_value(v);
    char *s = json_dumps(v, JSON_ENCODE_ANY);
    char *r = xstrdup(s ? s : "nan");
    free(s);
    return r;
  }
  if (json_is_boolean(v)) {
    *num = json_is_true(v) ? 1 : 0;
    return xstrdup(json_is_true(v) ? "1" : "0");
  }
  if (json_is_string(v)) return xstrdup(json_string_value(v));
  char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
  char *r = xstrdup(s ? s : "null");
  free(s);
  return r;
}

/* Index of value v among the parameter's values: numbers by value, others by text. */
static int match_value(const cs_param *pp, json_t *v) {
  double num;
  char *txt = json_value_text(v, &num);
  int found = -1;
  for (int k = 0; k < pp->nvalues && found < 0; k++) {
    if (isfinite(num) && isfinite(pp->num[k])) {
      if (pp->num[k] == num) found = k;
    } else if (!strcmp(pp->str[k], txt)) {
      found = k;
    }
  }
  free(txt);
  return found;
}

static rec_status kt_failure(const char *s) {
  if (!strcmp(s, "CompilationFailedConfig")) return ST_COMPILE_ERROR;
  if (!strcmp(s, "InvalidConfig")) return ST_INVALID;
  return ST_RUNTIME_FAULT; /* RuntimeFailedConfig and anything else a run could not time */
}

static int kt_load(const char *path, json_t *root, replay **out, cterr *err) {
  json_t *keys = json_object_get(root, "tune_params_keys"), *tp = json_object_get(root, "tune_params");
  json_t *cache = json_object_get(root, "cache");
  if (!json_is_array(keys) || !json_is_object(tp) || !json_is_object(cache))
    return cterr_set(err,
                     "%s: not a Kernel Tuner cache file (expected \"tune_params_keys\", \"tune_params\" and "
                     "\"cache\")",
                     path);
  configset *cs = configset_new();
  size_t np = json_array_size(keys);
  for (size_t p = 0; p < np; p++) {
    const char *name = json_string_value(json_array_get(keys, p));
    json_t *vals = name ? json_object_get(tp, name) : NULL;
    if (!json_is_array(vals) || json_array_size(vals) == 0) {
      configset_free(cs);
      return cterr_set(err, "%s: tune_params has no value list for parameter %zu ('%s')", path, p, name ? name : "?");
    }
    size_t nv = json_array_size(vals);
    char **str = xcalloc(nv, sizeof(char *));
    double *num = xcalloc(nv, sizeof(double));
    for (size_t v = 0; v < nv; v++) str[v] = json_value_text(json_array_get(vals, v), &num[v]);
    int rc = configset_add_param(cs, name, (int)nv, (const char *const *)str, num, err);
    for (size_t v = 0; v < nv; v++) free(str[v]);
    free(str), free(num);
    if (rc < 0) {
      configset_free(cs);
      return cterr_wrap(err, "%s", path);
    }
  }
  replay *r = replay_alloc(json_object_size(cache));
  r->own_cs = cs, r->cs = cs;
  const char *dev = json_string_value(json_object_get(root, "device_name"));
  const char *ker = json_string_value(json_object_get(root, "kernel_name"));
  r->title = (dev && ker) ? xasprintf("%s / %s", dev, ker) : xstrdup(path_basename(path));
  r->problem = xstrdup("");
  r->device = dev ? xstrdup(dev) : NULL;
  r->kernel = ker ? xstrdup(ker) : NULL;
  json_t *ps = json_object_get(root, "problem_size");
  if (json_is_array(ps) || json_is_integer(ps)) {
    dbuf sz;
    dbuf_init(&sz);
    size_t nps = json_is_array(ps) ? json_array_size(ps) : 1;
    for (size_t k = 0; k < nps; k++) {
      json_t *x = json_is_array(ps) ? json_array_get(ps, k) : ps;
      dbuf_printf(&sz, "%s%lld", k ? "," : "", json_is_integer(x) ? (long long)json_integer_value(x) : -1LL);
    }
    r->sizes = dbuf_steal(&sz);
  }
  const char *key;
  json_t *ent;
  double *reps = NULL;
  size_t repcap = 0;
  json_object_foreach(cache, key, ent) {
    uint16_t row[CS_MAX_PARAMS];
    for (size_t p = 0; p < np; p++) {
      json_t *v = json_object_get(ent, configset_param(cs, (int)p)->name);
      int k = v ? match_value(configset_param(cs, (int)p), v) : -1;
      if (k < 0) { /* the message names the parameter before replay_free frees cs with r */
        cterr_set(err, "%s: cache entry \"%s\": parameter '%s' %s", path, key, configset_param(cs, (int)p)->name,
                  v ? "has a value that is not one of tune_params" : "is missing");
        replay_free(r), free(reps);
        return -1;
      }
      row[p] = (uint16_t)k;
    }
    size_t i = configset_add(cs, row);
    const char *stamp = json_string_value(json_object_get(ent, "timestamp"));
    if (stamp && strlen(stamp) >= 10 && (!r->date || strncmp(stamp, r->date, 10) < 0)) {
      free(r->date);
      r->date = xasprintf("%.10s", stamp); /* the first day of the run */
    }
    json_t *t = json_object_get(ent, "time"), *ts = json_object_get(ent, "times");
    rec_status st = ST_OK;
    double value = INFINITY;
    if (json_is_number(t)) value = json_number_value(t);
    else st = json_is_string(t) ? kt_failure(json_string_value(t)) : ST_RUNTIME_FAULT;
    if (st == ST_OK && !(value > 0 && isfinite(value))) {
      replay_warn(r, "%s: cache entry \"%s\": time %g is not a positive time; counted as failed (runtime_fault)", path,
                  key, value);
      st = ST_RUNTIME_FAULT, value = INFINITY;
    }
    size_t nr = json_is_array(ts) ? json_array_size(ts) : 0;
    if (nr > repcap) repcap = nr, reps = xrealloc(reps, repcap * sizeof(double));
    int nreps = 0;
    for (size_t k = 0; k < nr; k++)
      if (json_is_number(json_array_get(ts, k))) reps[nreps++] = json_number_value(json_array_get(ts, k));
    json_t *ct = json_object_get(ent, "compile_time"), *bt = json_object_get(ent, "benchmark_time");
    double cms = json_is_number(ct) ? json_number_value(ct) : NAN;
    double bms = json_is_number(bt) ? json_number_value(bt) : (st == ST_OK ? value * (nreps ? nreps : 1) : 0);
    double cost = ((isfinite(cms) ? cms : 0) + (isfinite(bms) ? bms : 0)) / 1000.0;
    replay_set(r, i, st, value, cms, cost, reps, nreps);
  }
  free(reps);
  replay_finish(r);
  *out = r;
  return 0;
}

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

int replay_load(const char *path, const char *problem, replay **out, cterr *err) {
  *out = NULL;
  if (ends_with(path, ".jsonl") || ends_with(path, ".jsonl.gz")) return replay_load_cutune(path, problem, out, err);
  dbuf b;
  dbuf_init(&b);
  if (replay_read_file(path, &b, err) < 0) {
    dbuf_free(&b);
    return -1;
  }
  json_error_t je;
  json_t *root = json_loadb(b.data, b.len, 0, &je);
  dbuf_free(&b);
  if (!root) {
    /* several JSON objects, one per line: a cutune results file under another name */
    if (strstr(je.text, "end of file expected")) return replay_load_cutune(path, problem, out, err);
    return cterr_set(err, "%s:%d: %s", path, je.line, je.text);
  }
  int rc = kt_load(path, root, out, err);
  json_decref(root);
  return rc;
}

/* ---- a space's configset over a recorded file ---- */

int replay_load_for(const char *path, const char *problem, const configset *space_cs, replay **out, cterr *err) {
  *out = NULL;
  replay *f;
  if (replay_load(path, problem, &f, err) < 0) return -1;
  const configset *fc = f->cs;
  int fnp = configset_nparams(fc), snp = configset_nparams(space_cs);
  int map[CS_MAX_PARAMS];         /* file param -> space param (-1: fixed in the file) */
  int *vmap[CS_MAX_PARAMS] = {0}; /* space value index -> file value index (-1: none) */
  int rc = -1;
  for (int p = 0; p < fnp; p++) {
    const cs_param *fp = configset_param(fc, p);
    map[p] = configset_param_index(space_cs, fp->name);
    if (map[p] < 0 && fp->nvalues != 1) {
      cterr_set(err, "%s: parameter '%s' of the recorded file is not a parameter of the space", path, fp->name);
      goto done;
    }
  }
  for (int q = 0; q < snp; q++) {
    const cs_param *sp = configset_param(space_cs, q);
    if (configset_param_index(fc, sp->name) < 0) {
      cterr_set(err, "%s: parameter '%s' of the space is not in the recorded file", path, sp->name);
      goto done;
    }
  }
  for (int p = 0; p < fnp; p++) {
    if (map[p] < 0) continue;
    const cs_param *fp = configset_param(fc, p), *sp = configset_param(space_cs, map[p]);
    vmap[p] = xmalloc((size_t)sp->nvalues * sizeof(int));
    for (int v = 0; v < sp->nvalues; v++) {
      vmap[p][v] = -1;
      for (int k = 0; k < fp->nvalues && vmap[p][v] < 0; k++) {
        int both_num = isfinite(sp->num[v]) && isfinite(fp->num[k]);
        if (both_num ? sp->num[v] == fp->num[k] : !strcmp(sp->str[v], fp->str[k])) vmap[p][v] = k;
      }
    }
  }
  size_t n = configset_count(space_cs);
  replay *r = replay_alloc(n);
  r->cs = space_cs;
  r->title = xstrdup(f->title), r->problem = xstrdup(f->problem);
  if (f->warnings.len) dbuf_append(&r->warnings, f->warnings.data, f->warnings.len);
  r->nwarnings = f->nwarnings;
  for (size_t i = 0; i < n; i++) {
    const uint16_t *srow = configset_row(space_cs, i);
    uint16_t frow[CS_MAX_PARAMS];
    long j = 0;
    for (int p = 0; p < fnp && j >= 0; p++) {
      int k = map[p] < 0 ? 0 : vmap[p][srow[map[p]]];
      if (k < 0) j = -1;
      else frow[p] = (uint16_t)k;
    }
    if (j >= 0) j = configset_find(fc, frow);
    if (j < 0 || (size_t)j >= f->n) replay_set(r, i, ST_INVALID, INFINITY, NAN, 0, NULL, 0);
    else replay_set(r, i, f->status[j], f->value[j], f->compile_ms[j], f->cost_s[j], f->reps[j], f->nreps[j]);
  }
  replay_finish(r);
  *out = r;
  rc = 0;
done:
  for (int p = 0; p < fnp; p++) free(vmap[p]);
  replay_free(f);
  return rc;
}
