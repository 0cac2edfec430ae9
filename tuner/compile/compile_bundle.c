/* compile_bundle: the programs of one configuration compiled as one job. A configuration whose
 * launches need other macro values than its own (a second pass of the same kernel with
 * num_blocks = 1, space.h: launches) is more than one NVRTC program; its compile job chains them
 * (compile_job.next), and the result's image is a bundle of their cubins, so the pool, the cache
 * and the engine keep treating one configuration as one compile. A chain of one is a plain
 * cubin, as before. The resources are the first program's (the configuration's own kernel); the
 * lowered names are the first program's, then each further program's kernel, one line each.
 *
 * Bundle: "CTBNDL01", a u32 count, a u64 length per image, then the images, in chain order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define BUNDLE_MAGIC "CTBNDL01"

int compile_bundle_count(const void *data, size_t len) {
  uint32_t n;
  if (!data || len < 12 || memcmp(data, BUNDLE_MAGIC, 8)) return 1;
  memcpy(&n, (const char *)data + 8, 4);
  return n >= 1 && n <= COMPILE_MAX_PROGRAMS && 12 + 8 * (size_t)n <= len ? (int)n : 0;
}

const void *compile_bundle_image(const void *data, size_t len, int i, size_t *ilen) {
  int n = compile_bundle_count(data, len);
  if (n == 1 && (len < 12 || memcmp(data, BUNDLE_MAGIC, 8))) return i == 0 ? (*ilen = len, data) : NULL;
  if (i < 0 || i >= n) return NULL;
  const char *p = data;
  size_t at = 12 + 8 * (size_t)n;
  for (int k = 0; k <= i; k++) {
    uint64_t l;
    memcpy(&l, p + 12 + 8 * (size_t)k, 8);
    if (at + l > len) return NULL;
    if (k == i) return *ilen = (size_t)l, p + at;
    at += (size_t)l;
  }
  return NULL;
}

int compile_bundle(const compile_job *job, compile_result *res, cterr *err) {
  if (compile_now(job, res, err) != 0) return -1;
  if (!job->next || !res->ok) return 0;
  dbuf images[COMPILE_MAX_PROGRAMS];
  int n = 0;
  images[n++] = res->cubin; /* moved: res->cubin is rebuilt as the bundle below */
  dbuf_init(&res->cubin);
  dbuf low;
  dbuf_init(&low);
  dbuf_puts(&low, res->lowered ? res->lowered : job->kernel);
  int rc = 0, k = 1;
  for (const compile_job *j = job->next; j && rc == 0; j = j->next, k++) {
    if (n == COMPILE_MAX_PROGRAMS) {
      rc = cterr_set(err, "%s: more than %d programs in one configuration", job->src_path, COMPILE_MAX_PROGRAMS);
      break;
    }
    compile_result r;
    if (compile_now(j, &r, err) != 0) {
      rc = -1;
      break;
    }
    res->compile_ms += r.compile_ms;
    if (!r.ok) { /* the configuration fails as its first failing program does */
      res->ok = 0;
      free(res->message);
      res->message = xasprintf("program %d of the configuration (launch of %s): %s", k + 1, j->kernel, r.message);
      dbuf_puts(&res->log, r.log.data ? r.log.data : "");
      compile_result_free(&r);
      break;
    }
    char name[512];
    dbuf_printf(&low, "\n%s", compile_lowered(&r, 0, j->kernel, name, sizeof name));
    images[n++] = r.cubin;
    dbuf_init(&r.cubin);
    compile_result_free(&r);
  }
  if (rc == 0 && res->ok) {
    uint32_t cnt = (uint32_t)n;
    dbuf_append(&res->cubin, BUNDLE_MAGIC, 8);
    dbuf_append(&res->cubin, &cnt, 4);
    for (int i = 0; i < n; i++) {
      uint64_t l = images[i].len;
      dbuf_append(&res->cubin, &l, 8);
    }
    for (int i = 0; i < n; i++) dbuf_append(&res->cubin, images[i].data, images[i].len);
    free(res->lowered);
    res->lowered = dbuf_steal(&low);
  }
  for (int i = 0; i < n; i++) dbuf_free(&images[i]);
  dbuf_free(&low);
  return rc;
}
