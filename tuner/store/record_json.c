/* record_json: the JSON line form of a record (declared in record_json.h).
 *
 * Writing goes through dbuf with a fixed key order, so files diff cleanly and simple tools
 * (grep, jq, a benchmark script reading `t_median`) can rely on the layout. Reading goes
 * through jansson and is strict about types but lenient about absent keys: a record written
 * by an older cutune with fewer fields still loads, with the missing figures unmeasured
 * (NAN / -1). NAN and -1 are written as null so the file stays valid JSON. A line with a
 * duplicate key (at any depth) is malformed for both the fast reader and jansson. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record_json.h"

/* ---- writing ---- */

static void key(dbuf *b, const char *k, int *first) {
  if (!*first) dbuf_puts(b, ",");
  *first = 0;
  dbuf_json_str(b, k);
  dbuf_puts(b, ":");
}

static void put_str(dbuf *b, const char *k, const char *v, int *first) {
  key(b, k, first);
  if (v) dbuf_json_str(b, v);
  else dbuf_puts(b, "null");
}

static void put_num(dbuf *b, const char *k, double v, int *first) {
  key(b, k, first);
  dbuf_json_num(b, v);
}

/* ints use -1 for "not measured" */
static void put_int(dbuf *b, const char *k, long long v, int *first) {
  key(b, k, first);
  if (v == -1) dbuf_puts(b, "null");
  else dbuf_printf(b, "%lld", v);
}

void record_to_json(const record *r, dbuf *b) {
  int f = 1, g;
  dbuf_puts(b, "{");
  put_str(b, "space", r->space, &f);
  put_str(b, "config", r->config, &f);
  key(b, "params", &f);
  dbuf_puts(b, "{");
  g = 1;
  for (int i = 0; i < r->nparams; i++) put_str(b, r->pname[i] ? r->pname[i] : "", r->pvalue[i], &g);
  dbuf_puts(b, "}");
  put_str(b, "problem", r->problem, &f);
  put_str(b, "status", rec_status_name(r->status), &f);
  put_str(b, "message", r->message, &f);
  if (r->unchecked > 0) put_int(b, "unchecked", 1, &f); /* optional: only timing-only spaces have it */

  key(b, "time_ms", &f);
  dbuf_puts(b, "{");
  g = 1;
  put_num(b, "median", r->t_median, &g);
  put_num(b, "min", r->t_min, &g);
  put_num(b, "mean", r->t_mean, &g);
  put_num(b, "std", r->t_std, &g);
  put_int(b, "samples", r->samples, &g);
  if (isfinite(r->t_isolated)) put_num(b, "isolated", r->t_isolated, &g); /* optional: older stores lack it */
  if (isfinite(r->t_iso_floor)) put_num(b, "isolated_floor", r->t_iso_floor, &g);
  if (isfinite(r->t_raced)) put_num(b, "raced_above", r->t_raced, &g); /* optional: a raced record only */
  if (isfinite(r->t_raced) && r->race_ref) put_str(b, "race_ref", r->race_ref, &g);
  dbuf_puts(b, "}");
  put_num(b, "t_median", r->t_median, &f); /* duplicated at top level for simple tools */
  put_num(b, "gbps", r->gbps, &f);
  put_num(b, "copy_share", r->copy_share, &f);
  put_num(b, "gflops", r->gflops, &f);
  if (isfinite(r->cublas_share)) put_num(b, "cublas_share", r->cublas_share, &f);
  put_num(b, "energy_mj", r->energy_mj, &f);

  key(b, "resources", &f);
  dbuf_puts(b, "{");
  g = 1;
  put_int(b, "regs", r->regs, &g);
  put_int(b, "smem_static", r->smem_static, &g);
  put_int(b, "smem_dynamic", r->smem_dynamic, &g);
  put_int(b, "local_bytes", r->local_bytes, &g);
  put_int(b, "spill_stores", r->spill_stores, &g);
  put_int(b, "spill_loads", r->spill_loads, &g);
  put_int(b, "block_threads", r->block_threads, &g);
  put_num(b, "occupancy", r->occupancy, &g);
  put_str(b, "limiter", r->limiter, &g);
  dbuf_puts(b, "}");
  put_num(b, "compile_ms", r->compile_ms, &f);
  if (isfinite(r->measure_ms)) put_num(b, "measure_ms", r->measure_ms, &f);
  if (isfinite(r->measure_ms)) { /* optional: older stores lack it */
    key(b, "measure_split_ms", &f);
    dbuf_puts(b, "{");
    g = 1;
    const double split[] = {r->m_load_ms, r->m_check_ms, r->m_timing_ms, r->m_isolated_ms};
    static const char *const stage[] = {"load", "check", "timing", "isolated"};
    for (int i = 0; i < 4; i++) put_num(b, stage[i], split[i], &g);
    dbuf_puts(b, "}");
  }

  key(b, "provenance", &f);
  dbuf_puts(b, "{");
  g = 1;
  put_str(b, "template_hash", r->template_hash, &g);
  put_str(b, "options_hash", r->options_hash, &g);
  if (r->check_hash) put_str(b, "check_hash", r->check_hash, &g); /* optional: older stores lack it */
  if (r->launch_hash) put_str(b, "launch_hash", r->launch_hash, &g); /* optional: older stores lack it */
  put_str(b, "nvrtc", r->nvrtc_version, &g);
  put_str(b, "driver", r->driver_version, &g);
  put_str(b, "device", r->device_name, &g);
  put_str(b, "cc", r->device_cc, &g);
  if (r->device_sms > 0) put_int(b, "sms", r->device_sms, &g);
  put_str(b, "uuid", r->device_uuid, &g);
  put_str(b, "arch", r->arch, &g);
  put_str(b, "time", r->timestamp, &g);
  put_num(b, "sm_clock_mhz", r->sm_clock_mhz, &g);
  put_num(b, "mem_clock_mhz", r->mem_clock_mhz, &g);
  put_int(b, "throttle_reasons", r->throttle_reasons, &g);
  put_num(b, "temperature_c", r->temperature_c, &g);
  dbuf_puts(b, "}");
  dbuf_puts(b, "}");
}

/* ---- reading ----
 *
 * The fields each JSON object holds, as tables, so the two readers below agree by
 * construction: a fast one-pass reader for the lines cutune itself writes (loading a store
 * of 100k records must take well under a second, which a DOM per line does not allow), and
 * jansson, which decides every line the fast reader declines (escapes it does not handle,
 * non-ASCII text, anything malformed) and words the error for a line that is not a record. */

typedef enum { F_STR, F_NUM, F_INT, F_I64 } fkind;
typedef struct {
  const char *name;
  fkind kind;
  size_t off;
} field;
#define FS(n, f)                                                                                                       \
  { n, F_STR, offsetof(record, f) }
#define FN(n, f)                                                                                                       \
  { n, F_NUM, offsetof(record, f) }
#define FI(n, f)                                                                                                       \
  { n, F_INT, offsetof(record, f) }
#define FL(n, f)                                                                                                       \
  { n, F_I64, offsetof(record, f) }

static const field top_fields[] = {FS("space", space),
                                   FS("config", config),
                                   FS("problem", problem),
                                   FS("message", message),
                                   FN("gbps", gbps),
                                   FN("copy_share", copy_share),
                                   FN("gflops", gflops),
                                   FN("cublas_share", cublas_share),
                                   FN("energy_mj", energy_mj),
                                   FN("compile_ms", compile_ms),
                                   FN("measure_ms", measure_ms),
                                   FI("unchecked", unchecked),
                                   {NULL, F_STR, 0}};
static const field time_fields[] = {FN("median", t_median),
                                    FN("min", t_min),
                                    FN("mean", t_mean),
                                    FN("std", t_std),
                                    FI("samples", samples),
                                    FN("isolated", t_isolated),
                                    FN("isolated_floor", t_iso_floor),
                                    FN("raced_above", t_raced),
                                    FS("race_ref", race_ref),
                                    {NULL, F_STR, 0}};
static const field split_fields[] = {FN("load", m_load_ms),
                                     FN("check", m_check_ms),
                                     FN("timing", m_timing_ms),
                                     FN("isolated", m_isolated_ms),
                                     {NULL, F_STR, 0}};
static const field res_fields[] = {FI("regs", regs),
                                   FI("smem_static", smem_static),
                                   FI("smem_dynamic", smem_dynamic),
                                   FI("local_bytes", local_bytes),
                                   FI("spill_stores", spill_stores),
                                   FI("spill_loads", spill_loads),
                                   FI("block_threads", block_threads),
                                   FN("occupancy", occupancy),
                                   FS("limiter", limiter),
                                   {NULL, F_STR, 0}};
static const field prov_fields[] = {FS("template_hash", template_hash),
                                    FS("options_hash", options_hash),
                                    FS("check_hash", check_hash),
                                    FS("launch_hash", launch_hash),
                                    FS("nvrtc", nvrtc_version),
                                    FS("driver", driver_version),
                                    FS("device", device_name),
                                    FS("cc", device_cc),
                                    FL("sms", device_sms),
                                    FS("uuid", device_uuid),
                                    FS("arch", arch),
                                    FS("time", timestamp),
                                    FN("sm_clock_mhz", sm_clock_mhz),
                                    FN("mem_clock_mhz", mem_clock_mhz),
                                    FL("throttle_reasons", throttle_reasons),
                                    FN("temperature_c", temperature_c),
                                    {NULL, F_STR, 0}};

static const field *field_find(const field *tab, const char *k) {
  for (; tab->name; tab++)
    if (tab->name[0] == k[0] && !strcmp(tab->name, k)) return tab;
  return NULL;
}

/* null means "not measured": NULL, NAN or -1 — what the writer turned into null */
static void field_set_null(record *r, const field *f) {
  char *base = (char *)r + f->off;
  switch (f->kind) {
  case F_STR: record_set_str((char **)(void *)base, NULL); break;
  case F_NUM: *(double *)(void *)base = NAN; break;
  case F_INT: *(int *)(void *)base = -1; break;
  case F_I64: *(int64_t *)(void *)base = -1; break;
  }
}

/* Store an integer (is_int) or real value; fails when the field's kind does not take it. */
static int field_set_num(record *r, const field *f, int is_int, long long iv, double dv, cterr *err) {
  char *base = (char *)r + f->off;
  if (f->kind == F_NUM) {
    *(double *)(void *)base = is_int ? (double)iv : dv;
    return 0;
  }
  if (f->kind == F_STR) return cterr_set(err, "'%s' must be a string", f->name);
  if (!is_int) {
    /* a tool that rewrote 12 as 12.0 still wrote an integer */
    if (dv != floor(dv) || fabs(dv) > 9e18) return cterr_set(err, "'%s' must be an integer or null", f->name);
    iv = (long long)dv;
  }
  if (f->kind == F_INT) {
    if (iv < -2147483647LL || iv > 2147483647LL) return cterr_set(err, "'%s' out of range: %lld", f->name, iv);
    *(int *)(void *)base = (int)iv;
  } else {
    *(int64_t *)(void *)base = iv;
  }
  return 0;
}

static int field_type_error(const field *f, cterr *err) {
  return cterr_set(err, "'%s' must be %s", f->name,
                   f->kind == F_STR   ? "a string"
                   : f->kind == F_NUM ? "a number or null"
                                      : "an integer or null");
}

/* ---- jansson reader ---- */

static int jx_fields(json_t *o, const field *tab, record *r, cterr *err) {
  for (const field *f = tab; f->name; f++) {
    json_t *v = json_object_get(o, f->name);
    if (!v) continue; /* absent: an older record; the field stays unmeasured */
    if (json_is_null(v)) field_set_null(r, f);
    else if (json_is_string(v) && f->kind == F_STR)
      record_set_str((char **)(void *)((char *)r + f->off), json_string_value(v));
    else if (json_is_integer(v) && f->kind != F_STR) {
      if (field_set_num(r, f, 1, (long long)json_integer_value(v), 0, err)) return -1;
    } else if (json_is_real(v) && f->kind != F_STR) {
      if (field_set_num(r, f, 0, 0, json_real_value(v), err)) return -1;
    } else return field_type_error(f, err);
  }
  return 0;
}

/* A sub-object that may be absent or null (older records); present, it must be an object. */
static int jx_obj(json_t *o, const char *k, json_t **dst, cterr *err) {
  json_t *v = json_object_get(o, k);
  *dst = NULL;
  if (!v || json_is_null(v)) return 0;
  if (!json_is_object(v)) return cterr_set(err, "'%s' must be an object", k);
  *dst = v;
  return 0;
}

static int jx_params(json_t *p, record *r, cterr *err) {
  const char *k;
  json_t *v;
  /* jansson iterates objects in insertion order, which is the space's parameter order */
  json_object_foreach(p, k, v) {
    if (r->nparams >= REC_MAX_PARAMS) return cterr_set(err, "more than %d params", REC_MAX_PARAMS);
    char *text;
    if (json_is_string(v)) text = xstrdup(json_string_value(v));
    else if (json_is_integer(v)) text = xasprintf("%lld", (long long)json_integer_value(v));
    else return cterr_set(err, "params.%s must be a string or an integer", k);
    r->pname[r->nparams] = xstrdup(k);
    r->pvalue[r->nparams] = text;
    r->nparams++;
  }
  return 0;
}

static int jx_record(json_t *o, record *r, cterr *err) {
  json_t *sub;
  if (!json_is_object(o)) return cterr_set(err, "not a JSON object");
  const char *required[] = {"config", "problem", "status"};
  for (size_t i = 0; i < sizeof required / sizeof *required; i++)
    if (!json_is_string(json_object_get(o, required[i])))
      return cterr_set(err, "'%s' missing or not a string", required[i]);
  const char *st = json_string_value(json_object_get(o, "status"));
  if (rec_status_parse(st, &r->status)) return cterr_set(err, "unknown status '%s'", st);
  if (jx_fields(o, top_fields, r, err)) return -1;
  if (jx_obj(o, "params", &sub, err) || (sub && jx_params(sub, r, err))) return -1;
  if (jx_obj(o, "time_ms", &sub, err)) return -1;
  if (sub) {
    if (jx_fields(sub, time_fields, r, err)) return cterr_wrap(err, "time_ms");
  } else {
    /* no time_ms object: the top-level duplicate is all there is */
    static const field tm[] = {FN("t_median", t_median), {NULL, F_STR, 0}};
    if (jx_fields(o, tm, r, err)) return -1;
  }
  if (jx_obj(o, "measure_split_ms", &sub, err) ||
      (sub && jx_fields(sub, split_fields, r, err) && cterr_wrap(err, "measure_split_ms")))
    return -1;
  if (jx_obj(o, "resources", &sub, err) || (sub && jx_fields(sub, res_fields, r, err) && cterr_wrap(err, "resources")))
    return -1;
  if (jx_obj(o, "provenance", &sub, err) ||
      (sub && jx_fields(sub, prov_fields, r, err) && cterr_wrap(err, "provenance")))
    return -1;
  return 0;
}

static int from_json_jansson(const char *line, size_t n, record *r, cterr *err) {
  json_error_t jerr;
  json_t *o = json_loadb(line, n, JSON_REJECT_DUPLICATES, &jerr);
  if (!o) return cterr_set(err, "%s at column %d", jerr.text, jerr.column);
  int rc = jx_record(o, r, err);
  json_decref(o);
  return rc;
}

/* ---- fast reader: declines (returns -1) on anything unusual; jansson then decides ---- */

typedef struct {
  const char *p, *end;
  dbuf tmp;
} fj;

/* The keys of one object seen so far: a key seen before makes the fast reader decline, so
 * that jansson (JSON_REJECT_DUPLICATES) rejects the line; both readers agree that a record
 * with a duplicate key is malformed. Objects with more or longer keys than this holds are
 * left to jansson as well. */
typedef struct fj_keys {
  uint32_t h[24]; /* FNV-1a of each key: most comparisons stop here */
  char text[24][32];
  int n;
} fj_keys;

static int fj_key_new(fj_keys *ks, const dbuf *key) {
  if (key->len >= sizeof ks->text[0] || ks->n >= (int)(sizeof ks->h / sizeof ks->h[0])) return -1;
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < key->len; i++) h = (h ^ (unsigned char)key->data[i]) * 16777619u;
  for (int i = 0; i < ks->n; i++)
    if (ks->h[i] == h && !strcmp(ks->text[i], key->data)) return -1;
  ks->h[ks->n] = h;
  memcpy(ks->text[ks->n++], key->data, key->len + 1);
  return 0;
}

static void fj_ws(fj *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n')) j->p++;
}

static int fj_eat(fj *j, char c) {
  fj_ws(j);
  if (j->p < j->end && *j->p == c) {
    j->p++;
    return 1;
  }
  return 0;
}

/* A string of printable ASCII with simple escapes, into j->tmp. */
static int fj_str(fj *j) {
  dbuf_reset(&j->tmp);
  if (!fj_eat(j, '"')) return -1;
  const char *s = j->p;
  for (;;) {
    /* printable ASCII other than '"' and '\\' is the common case: one compare each */
    while (j->p < j->end && (unsigned char)(*j->p - 0x20) < 0x60 && *j->p != '"' && *j->p != '\\') j->p++;
    if (j->p >= j->end) return -1;
    unsigned char c = (unsigned char)*j->p;
    if (c == '"') break;
    if (c != '\\') return -1; /* control: invalid; UTF-8: let jansson validate it */
    dbuf_append(&j->tmp, s, (size_t)(j->p - s));
    if (j->p + 1 >= j->end) return -1;
    char e = j->p[1], o;
    switch (e) {
    case '"':
    case '\\':
    case '/': o = e; break;
    case 'b': o = '\b'; break;
    case 'f': o = '\f'; break;
    case 'n': o = '\n'; break;
    case 'r': o = '\r'; break;
    case 't': o = '\t'; break;
    default: return -1; /* \uXXXX and the rest: jansson */
    }
    dbuf_append(&j->tmp, &o, 1);
    j->p += 2;
    s = j->p;
  }
  dbuf_append(&j->tmp, s, (size_t)(j->p - s));
  j->p++;
  if (!j->tmp.data) dbuf_puts(&j->tmp, "");
  return 0;
}

static int fj_lit(fj *j, const char *lit) {
  size_t n = strlen(lit);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n)) return -1;
  j->p += n;
  return 0;
}

/* A JSON number, grammar checked here so strtod/strtoll see only what JSON allows. */
static int fj_num(fj *j, int *is_int, long long *iv, double *dv) {
  const char *s = j->p, *q = s;
  *is_int = 1;
  if (q < j->end && *q == '-') q++;
  if (q >= j->end || *q < '0' || *q > '9') return -1;
  if (*q == '0') q++;
  else
    while (q < j->end && *q >= '0' && *q <= '9') q++;
  if (q < j->end && *q == '.') {
    *is_int = 0, q++;
    if (q >= j->end || *q < '0' || *q > '9') return -1;
    while (q < j->end && *q >= '0' && *q <= '9') q++;
  }
  if (q < j->end && (*q == 'e' || *q == 'E')) {
    *is_int = 0, q++;
    if (q < j->end && (*q == '+' || *q == '-')) q++;
    if (q >= j->end || *q < '0' || *q > '9') return -1;
    while (q < j->end && *q >= '0' && *q <= '9') q++;
  }
  char buf[64];
  if ((size_t)(q - s) >= sizeof buf) return -1;
  memcpy(buf, s, (size_t)(q - s));
  buf[q - s] = 0;
  errno = 0;
  if (*is_int) *iv = strtoll(buf, NULL, 10);
  else *dv = strtod(buf, NULL);
  if (errno) return -1; /* overflow: jansson words it */
  j->p = q;
  return 0;
}

static int fj_skip(fj *j, int depth) {
  fj_ws(j);
  if (j->p >= j->end || depth > 32) return -1;
  char c = *j->p;
  if (c == '"') return fj_str(j);
  if (c == 'n') return fj_lit(j, "null");
  if (c == 't') return fj_lit(j, "true");
  if (c == 'f') return fj_lit(j, "false");
  if (c == '{' || c == '[') {
    char close = c == '{' ? '}' : ']';
    j->p++;
    if (fj_eat(j, close)) return 0;
    fj_keys ks;
    ks.n = 0;
    do {
      if (c == '{' && (fj_str(j) || fj_key_new(&ks, &j->tmp) || !fj_eat(j, ':'))) return -1;
      if (fj_skip(j, depth + 1)) return -1;
    } while (fj_eat(j, ','));
    return fj_eat(j, close) ? 0 : -1;
  }
  int is_int;
  long long iv;
  double dv;
  return fj_num(j, &is_int, &iv, &dv);
}

/* One value into a field of the table. */
static int fj_field(fj *j, record *r, const field *f) {
  fj_ws(j);
  if (j->p >= j->end) return -1;
  if (*j->p == 'n') {
    if (fj_lit(j, "null")) return -1;
    field_set_null(r, f);
    return 0;
  }
  if (*j->p == '"') {
    if (f->kind != F_STR || fj_str(j)) return -1;
    record_set_str((char **)(void *)((char *)r + f->off), j->tmp.data);
    return 0;
  }
  int is_int;
  long long iv;
  double dv;
  cterr e;
  if (f->kind == F_STR || fj_num(j, &is_int, &iv, &dv)) return -1;
  return field_set_num(r, f, is_int, iv, dv, &e);
}

static int fj_params(fj *j, record *r) {
  do {
    if (fj_str(j) || !fj_eat(j, ':') || r->nparams >= REC_MAX_PARAMS) return -1;
    for (int i = 0; i < r->nparams; i++)
      if (!strcmp(r->pname[i], j->tmp.data)) return -1; /* duplicate: jansson's rule applies */
    char *name = xstrdup(j->tmp.data), *text;
    fj_ws(j);
    int is_int;
    long long iv;
    double dv;
    if (j->p < j->end && *j->p == '"' && fj_str(j) == 0) text = xstrdup(j->tmp.data);
    else if (fj_num(j, &is_int, &iv, &dv) == 0 && is_int) text = xasprintf("%lld", iv);
    else {
      free(name);
      return -1;
    }
    r->pname[r->nparams] = name;
    r->pvalue[r->nparams++] = text;
  } while (fj_eat(j, ','));
  return 0;
}

enum { SEEN_CONFIG = 1, SEEN_PROBLEM = 2, SEEN_STATUS = 4, SEEN_TIME = 8 };

/* An object whose keys come from tab; at the top level (top != 0) also the sub-objects. */
static int fj_object(fj *j, record *r, const field *tab, int top, int *seen, double *t_median) {
  if (!fj_eat(j, '{')) return -1;
  if (fj_eat(j, '}')) return 0;
  fj_keys ks;
  ks.n = 0;
  do {
    if (fj_str(j) || fj_key_new(&ks, &j->tmp) || !fj_eat(j, ':')) return -1;
    char k[32];
    if (j->tmp.len >= sizeof k) {
      if (fj_skip(j, 1)) return -1;
      continue;
    }
    memcpy(k, j->tmp.data, j->tmp.len + 1);
    const field *f = field_find(tab, k);
    if (f) {
      fj_ws(j);
      int was_str = j->p < j->end && *j->p == '"';
      if (fj_field(j, r, f)) return -1;
      if (top && was_str) *seen |= !strcmp(k, "config") ? SEEN_CONFIG : !strcmp(k, "problem") ? SEEN_PROBLEM : 0;
      continue;
    }
    if (!top) {
      if (fj_skip(j, 1)) return -1;
      continue;
    }
    fj_ws(j);
    const field *subtab = !strcmp(k, "time_ms")            ? time_fields
                          : !strcmp(k, "resources")        ? res_fields
                          : !strcmp(k, "provenance")       ? prov_fields
                          : !strcmp(k, "measure_split_ms") ? split_fields
                                                           : NULL;
    int is_params = !strcmp(k, "params");
    if ((subtab || is_params) && j->p < j->end && *j->p == 'n') {
      if (fj_lit(j, "null")) return -1;
    } else if (is_params) {
      if (r->nparams || !fj_eat(j, '{')) return -1;
      if (!fj_eat(j, '}') && (fj_params(j, r) || !fj_eat(j, '}'))) return -1;
    } else if (subtab) {
      if (fj_object(j, r, subtab, 0, seen, t_median)) return -1;
      if (subtab == time_fields) *seen |= SEEN_TIME;
    } else if (!strcmp(k, "status")) {
      if (fj_str(j) || rec_status_parse(j->tmp.data, &r->status)) return -1;
      *seen |= SEEN_STATUS;
    } else if (!strcmp(k, "t_median")) {
      static const field tm = FN("t_median", t_median);
      record tmp;
      tmp.t_median = *t_median;
      if (fj_field(j, &tmp, &tm)) return -1;
      *t_median = tmp.t_median;
    } else if (fj_skip(j, 1)) {
      return -1;
    }
  } while (fj_eat(j, ','));
  return fj_eat(j, '}') ? 0 : -1;
}

static int from_json_fast(const char *line, size_t n, record *r) {
  fj j = {line, line + n, {0}};
  int seen = 0;
  double t_median = NAN;
  int rc = fj_object(&j, r, top_fields, 1, &seen, &t_median);
  fj_ws(&j);
  if (rc == 0 && (j.p != j.end || (seen & 7) != 7)) rc = -1;
  if (rc == 0 && !(seen & SEEN_TIME)) r->t_median = t_median;
  dbuf_free(&j.tmp);
  return rc;
}

int record_from_json_n(const char *line, size_t n, record *r, cterr *err) {
  record_init(r);
  if (from_json_fast(line, n, r) == 0) return 0;
  record_free(r);
  if (from_json_jansson(line, n, r, err) == 0) return 0;
  record_free(r);
  return -1;
}

int record_from_json(const char *line, record *r, cterr *err) { return record_from_json_n(line, strlen(line), r, err); }
