/* explain_store: the explain sidecar of a results store (see explain_store.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain_store.h"

struct explain_set {
  explain_entry *e;
  size_t n, cap;
};

char *explain_sidecar_path(const char *store_path) {
  size_t n = strlen(store_path);
  if (n > 6 && !strcmp(store_path + n - 6, ".jsonl")) return xasprintf("%.*s.explain.jsonl", (int)(n - 6), store_path);
  return xasprintf("%s.explain.jsonl", store_path);
}

static void entry_free(explain_entry *e) {
  free(e->config), free(e->problem), free(e->time), free(e->reading), free(e->template_hash);
}

void explain_free(explain_set *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) entry_free(&s->e[i]);
  free(s->e);
  free(s);
}

size_t explain_count(const explain_set *s) { return s ? s->n : 0; }
const explain_entry *explain_get(const explain_set *s, size_t i) { return s && i < s->n ? &s->e[i] : NULL; }

static int same(const char *a, const char *b) { return a && b && !strcmp(a, b); }

const explain_entry *explain_find_ncu(const explain_set *s, const char *config, const char *problem) {
  for (size_t i = explain_count(s); i-- > 0;)
    if (s->e[i].kind == EXPLAIN_NCU && same(s->e[i].config, config) && (!problem || same(s->e[i].problem, problem)))
      return &s->e[i];
  return NULL;
}

const explain_entry *explain_find_san(const explain_set *s, const char *config, const char *problem, san_tool t) {
  for (size_t i = explain_count(s); i-- > 0;)
    if (s->e[i].kind == EXPLAIN_SANITIZE && s->e[i].v.tool == t && same(s->e[i].config, config) &&
        (!problem || same(s->e[i].problem, problem)))
      return &s->e[i];
  return NULL;
}

/* ---- JSON ---- */

static void put_key(dbuf *b, const char *k, int *first) {
  if (!*first) dbuf_puts(b, ",");
  *first = 0;
  dbuf_json_str(b, k);
  dbuf_puts(b, ":");
}

void explain_entry_to_json(const explain_entry *e, dbuf *b) {
  int f = 1;
  dbuf_puts(b, "{");
  put_key(b, "kind", &f);
  dbuf_json_str(b, e->kind == EXPLAIN_NCU ? "ncu" : "sanitize");
  put_key(b, "config", &f), dbuf_json_str(b, e->config ? e->config : "");
  put_key(b, "problem", &f), dbuf_json_str(b, e->problem ? e->problem : "");
  put_key(b, "time", &f), dbuf_json_str(b, e->time ? e->time : "");
  if (e->template_hash) put_key(b, "template_hash", &f), dbuf_json_str(b, e->template_hash);
  if (e->kind == EXPLAIN_NCU) {
    put_key(b, "kernel", &f), dbuf_json_str(b, e->m.kernel);
    put_key(b, "metrics", &f);
    int g = 1;
    dbuf_puts(b, "{");
    for (int i = 0; i < NM_COUNT; i++) {
      if (!isfinite(e->m.v[i])) continue;
      put_key(b, ncu_metric_key((ncu_metric)i), &g);
      dbuf_json_num(b, e->m.v[i]);
    }
    dbuf_puts(b, "}");
    put_key(b, "stalls", &f);
    g = 1;
    dbuf_puts(b, "{");
    for (int i = 0; i < e->m.nstalls; i++) {
      put_key(b, e->m.stall[i].reason, &g);
      dbuf_json_num(b, e->m.stall[i].per_issue);
    }
    dbuf_puts(b, "}");
    put_key(b, "reading", &f), dbuf_json_str(b, e->reading ? e->reading : "");
    put_key(b, "cutune_median_ms", &f), dbuf_json_num(b, e->cutune_median_ms);
    put_key(b, "cutune_isolated_ms", &f), dbuf_json_num(b, e->cutune_isolated_ms);
  } else {
    put_key(b, "tool", &f), dbuf_json_str(b, san_tool_name(e->v.tool));
    put_key(b, "verdict", &f), dbuf_json_str(b, san_status_name(e->v.status));
    put_key(b, "errors", &f), dbuf_printf(b, "%ld", e->v.errors);
    put_key(b, "finding", &f), dbuf_json_str(b, e->v.finding);
  }
  dbuf_puts(b, "}");
}

static char *jstr(json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static double jnum(json_t *o, const char *k) {
  json_t *v = json_object_get(o, k);
  return json_is_number(v) ? json_number_value(v) : NAN;
}

static int entry_from_json(const char *line, size_t n, explain_entry *e) {
  memset(e, 0, sizeof *e);
  ncu_metrics_init(&e->m);
  e->cutune_median_ms = e->cutune_isolated_ms = NAN;
  json_error_t je;
  json_t *o = json_loadb(line, n, 0, &je);
  if (!json_is_object(o)) {
    json_decref(o);
    return -1;
  }
  int rc = -1;
  json_t *kind = json_object_get(o, "kind");
  if (!json_is_string(kind)) goto out;
  e->config = jstr(o, "config"), e->problem = jstr(o, "problem"), e->time = jstr(o, "time");
  e->template_hash = jstr(o, "template_hash");
  if (!e->config || !e->problem) goto out;
  if (!strcmp(json_string_value(kind), "ncu")) {
    e->kind = EXPLAIN_NCU;
    char *k = jstr(o, "kernel");
    if (k) snprintf(e->m.kernel, sizeof e->m.kernel, "%s", k);
    free(k);
    json_t *m = json_object_get(o, "metrics"), *v;
    const char *key;
    if (json_is_object(m)) json_object_foreach(m, key, v) {
        int i = ncu_metric_from_key(key);
        if (i >= 0 && json_is_number(v)) e->m.v[i] = json_number_value(v);
      }
    json_t *st = json_object_get(o, "stalls");
    if (json_is_object(st)) json_object_foreach(st, key, v) {
        if (e->m.nstalls >= NCU_MAX_STALLS || !json_is_number(v)) continue;
        ncu_stall *s = &e->m.stall[e->m.nstalls++];
        snprintf(s->reason, sizeof s->reason, "%s", key);
        s->per_issue = json_number_value(v);
      }
    e->reading = jstr(o, "reading");
    e->cutune_median_ms = jnum(o, "cutune_median_ms");
    e->cutune_isolated_ms = jnum(o, "cutune_isolated_ms");
    rc = 0;
  } else if (!strcmp(json_string_value(kind), "sanitize")) {
    e->kind = EXPLAIN_SANITIZE;
    json_t *t = json_object_get(o, "tool"), *vd = json_object_get(o, "verdict");
    int ti = json_is_string(t) ? san_tool_parse(json_string_value(t)) : -1;
    int vi = json_is_string(vd) ? san_status_parse(json_string_value(vd)) : -1;
    if (ti < 0 || vi < 0) goto out;
    e->v.tool = (san_tool)ti, e->v.status = (san_status)vi;
    double er = jnum(o, "errors");
    e->v.errors = isfinite(er) ? (long)er : -1;
    char *fd = jstr(o, "finding");
    snprintf(e->v.finding, sizeof e->v.finding, "%s", fd ? fd : "");
    free(fd);
    rc = 0;
  }
out:
  json_decref(o);
  if (rc) entry_free(e), memset(e, 0, sizeof *e);
  return rc;
}

int explain_load(const char *store_path, explain_set **out, size_t *skipped, cterr *err) {
  explain_set *s = xcalloc(1, sizeof *s);
  char *path = explain_sidecar_path(store_path);
  dbuf b;
  dbuf_init(&b);
  size_t bad = 0;
  *out = NULL;
  if (!file_exists(path)) goto ok;
  if (file_read(path, &b, err) != 0) {
    free(path), dbuf_free(&b), explain_free(s);
    return -1;
  }
  for (size_t i = 0; i < b.len;) {
    char *nl = memchr(b.data + i, '\n', b.len - i);
    size_t len = nl ? (size_t)(nl - (b.data + i)) : b.len - i;
    if (len) {
      explain_entry e;
      if (entry_from_json(b.data + i, len, &e) == 0) {
        if (s->n == s->cap) s->cap = s->cap ? 2 * s->cap : 16, s->e = xrealloc(s->e, s->cap * sizeof *s->e);
        s->e[s->n++] = e;
      } else {
        bad++;
      }
    }
    i += len + 1;
  }
ok:
  if (skipped) *skipped = bad;
  free(path);
  dbuf_free(&b);
  *out = s;
  return 0;
}

int explain_append(const char *store_path, const explain_entry *e, cterr *err) {
  char *path = explain_sidecar_path(store_path);
  dbuf b;
  dbuf_init(&b);
  explain_entry_to_json(e, &b);
  dbuf_puts(&b, "\n");
  int rc = -1, fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    cterr_set(err, "%s: cannot open for appending: %s", path, strerror(errno));
    goto out;
  }
  if (write(fd, b.data, b.len) != (ssize_t)b.len) {
    cterr_set(err, "%s: write failed: %s", path, strerror(errno));
    close(fd);
    goto out;
  }
  fsync(fd);
  close(fd);
  rc = 0;
out:
  free(path);
  dbuf_free(&b);
  return rc;
}

/* A sanitize line about config (on problem, if given) of template version th (if given). */
static int san_counts(const explain_entry *e, const char *config, const char *problem, const char *th) {
  return e->kind == EXPLAIN_SANITIZE && same(e->config, config) && (!problem || same(e->problem, problem)) &&
         (!th || !e->template_hash || !strcmp(e->template_hash, th));
}

explain_verdict_kind explain_verdict(const explain_set *s, const char *config, const char *problem,
                                     const char *template_hash, char *why, size_t whylen) {
  explain_verdict_kind k = EXPLAIN_UNCHECKED;
  if (why && whylen) why[0] = 0;
  /* newest counting line per (problem, tool): walk back, skipping pairs a later line had */
  for (size_t i = explain_count(s); i-- > 0;) {
    const explain_entry *e = &s->e[i];
    if (!san_counts(e, config, problem, template_hash)) continue;
    int newer = 0;
    for (size_t j = i + 1; j < s->n && !newer; j++)
      newer = san_counts(&s->e[j], config, problem, template_hash) && same(s->e[j].problem, e->problem) &&
              s->e[j].v.tool == e->v.tool;
    if (newer) continue; /* an older line */
    if (e->v.status == SAN_FLAGGED) {
      if (why) snprintf(why, whylen, "%s on %s: %s", san_tool_name(e->v.tool), e->problem, e->v.finding);
      return EXPLAIN_FLAGGED;
    }
    if (e->v.status == SAN_CLEAN) k = EXPLAIN_CLEAN;
  }
  return k;
}

int explain_verdict_ok(const char *store_path, const char *config, const char *problem, const char *template_hash,
                       char *why, size_t whylen) {
  explain_set *s = NULL;
  cterr err;
  if (explain_load(store_path, &s, NULL, &err) != 0) {
    if (why) snprintf(why, whylen, "the sanitizer verdicts cannot be read: %s", err.msg);
    return 0;
  }
  explain_verdict_kind k = explain_verdict(s, config, problem, template_hash, why, whylen);
  explain_free(s);
  return k != EXPLAIN_FLAGGED;
}
