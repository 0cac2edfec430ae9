/* compile_cache: compile results and the on-disk compile cache (the keys: compile.c).
 *
 * Layout: <dir>/<key[0:2]>/<key>.cubin and <key>.meta (JSON: status, resources, compile
 * time, message, log, and the cubin's size and a 64-bit checksum; for a member of a batched
 * compile, "lowered": its kernel's name in the cubin, and "batch": the members of the program).
 * A batched configuration's entry holds the whole batch's cubin: every configuration keeps an
 * entry of its own, whole, whatever happens to its batch-mates' (a few times the disk of a
 * single compile, for no shared file to count references to). The checksum is a cheap
 * word-at-a-time mix, not a cryptographic hash: it catches a cubin cut short or overwritten,
 * and costs next to nothing on a fully cached run (sha256 of every cubin was most of it). Both files are written with
 * tmp+rename, cubin first, so the meta file is the commit mark: a crash leaves either a
 * whole entry or an orphan cubin, which reads as a miss. Anything that does not parse or
 * does not match (key, size, hash) is a miss, never an error: the entry is recompiled
 * and overwritten. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "compile.h"

void compile_result_init(compile_result *r) {
  memset(r, 0, sizeof *r);
  dbuf_init(&r->cubin);
  dbuf_init(&r->log);
  r->res.regs = r->res.smem_static = r->res.local_bytes = -1;
  r->res.spill_stores = r->res.spill_loads = -1;
}

void compile_result_copy(compile_result *dst, const compile_result *src) {
  compile_result_init(dst);
  dst->ok = src->ok;
  if (src->cubin.len) dbuf_append(&dst->cubin, src->cubin.data, src->cubin.len);
  if (src->log.len) dbuf_append(&dst->log, src->log.data, src->log.len);
  dst->message = src->message ? xstrdup(src->message) : NULL;
  dst->batch = src->batch;
  dst->retry = src->retry;
  dst->res = src->res;
  dst->compile_ms = src->compile_ms;
  dst->cached = src->cached;
  dst->shared = src->shared;
  dst->timed_out = src->timed_out;
  dst->lost = src->lost;
  dst->space_fault = src->space_fault;
  memcpy(dst->key, src->key, sizeof dst->key);
  dst->lowered = src->lowered ? xstrdup(src->lowered) : NULL;
}

const char *compile_lowered(const compile_result *r, int i, const char *fallback, char *out, size_t n) {
  const char *name = fallback ? fallback : "";
  const char *p = r->lowered;
  for (int k = 0; p && k < i; k++) p = (p = strchr(p, '\n')) ? p + 1 : NULL;
  if (p && *p) snprintf(out, n, "%.*s", (int)strcspn(p, "\n"), p);
  else snprintf(out, n, "%s", name[0] == '&' ? name + 1 : name);
  return out;
}

void compile_result_free(compile_result *r) {
  if (!r) return;
  dbuf_free(&r->cubin);
  dbuf_free(&r->log);
  free(r->message);
  free(r->lowered);
  compile_result_init(r);
}

char *compile_cache_default_dir(void) {
  const char *e = getenv("CUTUNE_CACHE");
  if (e && e[0]) return xstrdup(e);
  e = getenv("XDG_CACHE_HOME");
  if (e && e[0]) return path_join(e, "cutune");
  e = getenv("HOME");
  if (e && e[0]) return xasprintf("%s/.cache/cutune", e);
  return xstrdup(".cutune-cache");
}

/* The cubin's size-and-checksum check, as the meta keeps it. */
static void cubin_check(const void *data, size_t n, char out[17]) {
  snprintf(out, 17, "%016llx", (unsigned long long)checksum64(data, n));
}

static int key_is_hex(const char *key) {
  if (!key || strlen(key) != 64) return 0;
  for (int i = 0; i < 64; i++)
    if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f'))) return 0;
  return 1;
}

static char *entry_path(const char *dir, const char *key, const char *ext) {
  return xasprintf("%s/%.2s/%s.%s", dir, key, key, ext);
}

/* json_string refuses text that is not UTF-8 (a log can echo a Latin-1 template line):
 * such bytes become '?' rather than losing the entry. */
static json_t *json_text(const char *s) {
  json_t *j = json_string(s ? s : "");
  if (j) return j;
  char *copy = xstrdup(s);
  for (char *c = copy; *c; c++)
    if ((unsigned char)*c >= 0x80) *c = '?';
  j = json_string(copy);
  free(copy);
  return j;
}

static int json_int(json_t *o, const char *k, int *out) {
  json_t *v = json_object_get(o, k);
  if (!json_is_integer(v)) return 0;
  *out = (int)json_integer_value(v);
  return 1;
}

static int cache_get(const char *dir, const char *key, compile_result *res, int with_cubin);

int compile_cache_get(const char *dir, const char *key, compile_result *res) { return cache_get(dir, key, res, 1); }
int compile_cache_get_resources(const char *dir, const char *key, compile_result *res) {
  return cache_get(dir, key, res, 0);
}

static int cache_get(const char *dir, const char *key, compile_result *res, int with_cubin) {
  compile_result_init(res);
  if (!dir || !key_is_hex(key)) return 0;
  char *meta_path = entry_path(dir, key, "meta"), *cubin_path = entry_path(dir, key, "cubin");
  dbuf text;
  dbuf_init(&text);
  json_t *root = NULL;
  int hit = 0;
  if (file_read(meta_path, &text, NULL) != 0) goto done;
  root = json_loadb(text.data ? text.data : "", text.len, 0, NULL);
  if (!json_is_object(root)) goto done;
  const char *fmt = json_string_value(json_object_get(root, "format"));
  const char *k = json_string_value(json_object_get(root, "key"));
  if (!fmt || strcmp(fmt, COMPILE_CACHE_FORMAT) || !k || strcmp(k, key)) goto done;
  int ok;
  kresources r;
  if (!json_int(root, "ok", &ok) || !json_int(root, "regs", &r.regs) ||
      !json_int(root, "smem_static", &r.smem_static) || !json_int(root, "local_bytes", &r.local_bytes) ||
      !json_int(root, "spill_stores", &r.spill_stores) || !json_int(root, "spill_loads", &r.spill_loads))
    goto done;
  json_t *ms = json_object_get(root, "compile_ms");
  const char *log = json_string_value(json_object_get(root, "log"));
  json_t *msg = json_object_get(root, "message");
  if (!json_is_number(ms) || !log || !(json_is_string(msg) || json_is_null(msg))) goto done;
  if (ok) {
    int size;
    const char *sum = json_string_value(json_object_get(root, "cubin_check"));
    if (!json_int(root, "cubin_size", &size) || !sum || size <= 0) goto done;
    if (with_cubin) {
      if (file_read(cubin_path, &res->cubin, NULL) != 0) goto done;
      char got[17];
      cubin_check(res->cubin.data ? res->cubin.data : "", res->cubin.len, got);
      if (res->cubin.len != (size_t)size || strcmp(got, sum)) goto done;
    } else {
      struct stat st; /* the image is not wanted: that it is there, whole, is enough */
      if (stat(cubin_path, &st) != 0 || st.st_size != (off_t)size) goto done;
    }
  }
  res->ok = ok ? 1 : 0;
  res->res = r;
  res->compile_ms = json_number_value(ms);
  dbuf_puts(&res->log, log);
  if (json_is_string(msg)) res->message = xstrdup(json_string_value(msg));
  const char *low = json_string_value(json_object_get(root, "lowered"));
  if (low) res->lowered = xstrdup(low);
  json_t *batch = json_object_get(root, "batch");
  res->batch = json_is_integer(batch) ? (int)json_integer_value(batch) : 1;
  res->cached = 1;
  memcpy(res->key, key, 65);
  hit = 1;
done:
  if (!hit) compile_result_free(res);
  json_decref(root);
  dbuf_free(&text);
  free(meta_path);
  free(cubin_path);
  return hit;
}

int compile_cache_put(const char *dir, const char *key, const compile_result *res, cterr *err) {
  if (!dir) return cterr_set(err, "compile cache: no folder given");
  if (!key_is_hex(key)) return cterr_set(err, "compile cache: key '%s' is not 64 hex digits", key ? key : "(null)");
  if (res->ok && res->cubin.len == 0)
    return cterr_set(err, "compile cache: result %s is marked ok but has no cubin", key);
  char *sub = xasprintf("%s/%.2s", dir, key);
  char *meta_path = entry_path(dir, key, "meta"), *cubin_path = entry_path(dir, key, "cubin");
  char *text = NULL;
  int rc = -1;
  if (mkdir_p(sub, err) != 0) goto done;
  json_t *root = json_object();
  json_object_set_new(root, "format", json_string(COMPILE_CACHE_FORMAT));
  json_object_set_new(root, "key", json_string(key));
  json_object_set_new(root, "ok", json_integer(res->ok ? 1 : 0));
  json_object_set_new(root, "regs", json_integer(res->res.regs));
  json_object_set_new(root, "smem_static", json_integer(res->res.smem_static));
  json_object_set_new(root, "local_bytes", json_integer(res->res.local_bytes));
  json_object_set_new(root, "spill_stores", json_integer(res->res.spill_stores));
  json_object_set_new(root, "spill_loads", json_integer(res->res.spill_loads));
  json_object_set_new(root, "compile_ms", json_real(res->compile_ms));
  json_object_set_new(root, "message", res->message ? json_text(res->message) : json_null());
  json_object_set_new(root, "log", json_text(res->log.data));
  if (res->lowered) json_object_set_new(root, "lowered", json_text(res->lowered));
  if (res->batch > 1) json_object_set_new(root, "batch", json_integer(res->batch));
  if (res->ok) {
    char sum[17];
    cubin_check(res->cubin.data, res->cubin.len, sum);
    json_object_set_new(root, "cubin_size", json_integer((json_int_t)res->cubin.len));
    json_object_set_new(root, "cubin_check", json_string(sum));
  }
  text = json_dumps(root, JSON_COMPACT);
  json_decref(root);
  if (!text) {
    cterr_set(err, "compile cache: cannot encode the entry for %s (is the log valid UTF-8?)", key);
    goto done;
  }
  if (res->ok && file_write_atomic(cubin_path, res->cubin.data, res->cubin.len, err) != 0) goto done;
  if (file_write_atomic(meta_path, text, strlen(text), err) != 0) goto done;
  rc = 0;
done:
  free(text);
  free(sub);
  free(meta_path);
  free(cubin_path);
  return rc;
}
