/* store: see store.h.
 *
 * Crash safety rests on three things: each record reaches the file in one write() of the
 * whole line (O_APPEND) followed by fsync, so a crash leaves at most one partial line and
 * only at the end; the file is repaired (torn tail moved aside) under the lock before
 * anything new is written; and the lock (flock on a side file, released by the kernel when
 * the holder dies, even by SIGKILL) keeps two runs from interleaving lines. */
#include "store.h"
#include "record_json.h"

#include "base/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct store {
  char *path;
  int fd;      /* O_APPEND descriptor; -1 when loaded read-only */
  int lock_fd; /* holds the flock; -1 when read-only */
  off_t size;  /* bytes of complete records in the file (we are its only writer) */
  record **recs;
  size_t n, cap;
  /* index: open addressing over (config, problem); a slot holds 1 + the newest record's
   * index, and prev[i] chains each record to the next older one with the same key, so
   * store_find can fall back to an older record whose hashes match. */
  size_t *slot, nslot;
  size_t *prev;
};

char *store_path_for(const char *dir, const char *device_name, const char *space_name) {
  char *dev = slugify(device_name && *device_name ? device_name : "unknown-device");
  char *sp = slugify(space_name && *space_name ? space_name : "space");
  char *rel = xasprintf("%s/%s.jsonl", dev, sp);
  char *p = path_join(dir && *dir ? dir : ".", rel);
  free(dev), free(sp), free(rel);
  return p;
}

/* ---- index ---- */

static uint64_t key_hash(const char *config, const char *problem) {
  uint64_t h = 1469598103934665603ULL;
  for (const unsigned char *p = (const unsigned char *)config; *p; p++) h = (h ^ *p) * 1099511628211ULL;
  h = (h ^ 0x1f) * 1099511628211ULL; /* separator: "a,b"+"c" must differ from "a"+"b,c" */
  for (const unsigned char *p = (const unsigned char *)problem; *p; p++) h = (h ^ *p) * 1099511628211ULL;
  return h ^ (h >> 29);
}

static size_t *index_lookup(const store *s, const char *config, const char *problem) {
  size_t mask = s->nslot - 1;
  for (size_t i = key_hash(config, problem) & mask;; i = (i + 1) & mask) {
    size_t v = s->slot[i];
    if (!v) return &s->slot[i];
    const record *r = s->recs[v - 1];
    if (!strcmp(r->config, config) && !strcmp(r->problem, problem)) return &s->slot[i];
  }
}

static void index_grow(store *s) {
  size_t *old = s->slot, oldn = s->nslot;
  s->nslot = oldn ? oldn * 2 : 1024;
  s->slot = xcalloc(s->nslot, sizeof *s->slot);
  for (size_t i = 0; i < oldn; i++) {
    if (!old[i]) continue;
    const record *r = s->recs[old[i] - 1];
    *index_lookup(s, r->config, r->problem) = old[i];
  }
  free(old);
}

/* Takes ownership of *r (moved into the store). */
static void store_add(store *s, record *r) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 256;
    s->recs = xrealloc(s->recs, s->cap * sizeof *s->recs);
    s->prev = xrealloc(s->prev, s->cap * sizeof *s->prev);
  }
  if ((s->n + 1) * 2 > s->nslot) index_grow(s);
  record *own = xmalloc(sizeof *own);
  *own = *r;
  record_init(r);
  s->recs[s->n] = own;
  size_t *sl = index_lookup(s, own->config, own->problem);
  s->prev[s->n] = *sl;
  *sl = s->n + 1;
  s->n++;
}

static int same_hash(const char *want, const char *have) { return !want || (have && !strcmp(want, have)); }

/* The check: unlike the template and options hashes, a record without one (an older store) matches. */
int store_same_check(const char *want, const record *r) {
  return !want || !r->check_hash || !strcmp(want, r->check_hash);
}

static int matches(const record *r, const char *template_hash, const char *options_hash, const char *check_hash) {
  return same_hash(template_hash, r->template_hash) && same_hash(options_hash, r->options_hash) &&
         store_same_check(check_hash, r);
}

const record *store_find_want(const store *s, const char *config, const char *problem, const store_want *w) {
  if (!s || !s->n || !config || !problem) return NULL;
  const char *launch = NULL;
  int asked = 0;
  for (size_t v = *index_lookup(s, config, problem); v; v = s->prev[v - 1]) {
    const record *r = s->recs[v - 1];
    if (r->status == ST_WORKER_LOST) continue; /* not the configuration's fault: measure again */
    if (r->status == ST_SPACE_ERROR && !w->space_errors) continue; /* the space may be fixed: evaluate again */
    if (!matches(r, w->template_hash, w->options_hash, w->check_hash)) continue;
    if (r->launch_hash && w->launch) { /* launched otherwise than the configuration is now? */
      if (!asked) launch = w->launch(w->launch_ctx), asked = 1;
      if (!launch || strcmp(launch, r->launch_hash)) continue;
    }
    return r;
  }
  return NULL;
}

const record *store_find(const store *s, const char *config, const char *problem, const char *template_hash,
                         const char *options_hash, const char *check_hash) {
  store_want w = {template_hash, options_hash, check_hash, 0, NULL, NULL};
  return store_find_want(s, config, problem, &w);
}

size_t store_count_status(const store *s, const char *config, const char *problem, const char *template_hash,
                          const char *options_hash, const char *check_hash, rec_status status) {
  size_t n = 0;
  if (!s || !s->n || !config || !problem) return 0;
  for (size_t v = *index_lookup(s, config, problem); v; v = s->prev[v - 1]) {
    const record *r = s->recs[v - 1];
    n += r->status == status && matches(r, template_hash, options_hash, check_hash);
  }
  return n;
}

const char *store_file(const store *s) { return s->path; }
size_t store_count(const store *s) { return s ? s->n : 0; }
const record *store_get(const store *s, size_t i) { return i < s->n ? s->recs[i] : NULL; }

/* ---- loading ---- */

static int blank(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') return 0;
  return 1;
}

/* Parse one line into the store; a malformed one becomes a warning naming file:line. */
static int load_line(store *s, const char *p, size_t n, size_t lineno, dbuf *warnings) {
  record r;
  cterr e;
  if (blank(p, n)) return 0;
  if (record_from_json_n(p, n, &r, &e)) {
    if (warnings) dbuf_printf(warnings, "%s:%zu: not a cutune record (%s)\n", s->path, lineno, e.msg);
    return -1;
  }
  store_add(s, &r);
  return 0;
}

static int write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w, n -= (size_t)w;
  }
  return 0;
}

/* Move the cut-off tail aside: appended (with a newline, so fragments stay apart) to
 * <file>.torn and fsync'd there before the store itself is truncated. */
static int save_torn(const char *path, const char *p, size_t n, cterr *err) {
  char *tp = xasprintf("%s.torn", path);
  int fd = open(tp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  int rc = -1;
  if (fd < 0) {
    cterr_set(err, "cannot open %s: %s", tp, strerror(errno));
    goto out;
  }
  if (write_all(fd, p, n) || write_all(fd, "\n", 1) || fsync(fd)) {
    cterr_set(err, "cannot write %s: %s", tp, strerror(errno));
    goto out;
  }
  rc = 0;
out:
  if (fd >= 0) close(fd);
  free(tp);
  return rc;
}

/* Load every line of data; with `repair` (we hold the lock and fd is open) fix the tail. */
static int load_all(store *s, const dbuf *data, int repair, dbuf *warnings, cterr *err) {
  const char *p = data->data ? data->data : "", *end = p + data->len;
  size_t lineno = 0;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    lineno++;
    if (nl) {
      load_line(s, p, (size_t)(nl - p), lineno, warnings);
      p = nl + 1;
      continue;
    }
    /* the last line lacks its newline: a crash during the write, or a complete record whose
     * newline never made it (then it parses, and is kept) */
    size_t n = (size_t)(end - p);
    record r;
    cterr e;
    if (!blank(p, n) && record_from_json_n(p, n, &r, &e) == 0) {
      if (repair && (write_all(s->fd, "\n", 1) || fsync(s->fd)))
        return cterr_set(err, "cannot write %s: %s", s->path, strerror(errno));
      store_add(s, &r);
      if (repair && warnings) dbuf_printf(warnings, "%s:%zu: last record lacked its newline; added\n", s->path, lineno);
      s->size = (off_t)data->len + (repair ? 1 : 0);
      return 0;
    }
    if (!repair) {
      if (warnings && !blank(p, n))
        dbuf_printf(warnings, "%s:%zu: last line is cut off (%zu bytes); ignored\n", s->path, lineno, n);
      s->size = (off_t)(p - data->data);
      return 0;
    }
    if (!blank(p, n) && save_torn(s->path, p, n, err)) return -1;
    off_t keep = (off_t)(p - data->data);
    if (ftruncate(s->fd, keep) || fsync(s->fd))
      return cterr_set(err, "cannot truncate %s to its last complete record: %s", s->path, strerror(errno));
    if (warnings && !blank(p, n))
      dbuf_printf(warnings, "%s:%zu: last line was cut off (%zu bytes, a crash during a write?); moved to %s.torn\n",
                  s->path, lineno, n, s->path);
    s->size = keep;
    return 0;
  }
  s->size = (off_t)data->len;
  return 0;
}

static store *store_new(const char *path) {
  store *s = xcalloc(1, sizeof *s);
  s->path = xstrdup(path);
  s->fd = s->lock_fd = -1;
  return s;
}

/* The path of store path's compressed part (path.gz, for a path ending in .jsonl; the caller
 * frees it), or NULL for another name. */
static char *packed_path(const char *path) {
  size_t n = strlen(path);
  return n >= 6 && !strcmp(path + n - 6, ".jsonl") ? xasprintf("%s.gz", path) : NULL;
}

/* The compressed part of store path, loaded first and read-only where it exists: 0, or -1
 * with err. */
static int load_packed(store *s, const char *path, dbuf *warnings, cterr *err) {
  char *gz = packed_path(path);
  int rc = 0;
  if (gz && file_exists(gz)) {
    dbuf data;
    dbuf_init(&data);
    rc = input_read(gz, "results file", input_data_max(), 1, &data, err);
    if (rc == 0) {
      char *keep = s->path;
      s->path = gz; /* its lines' warnings name it */
      rc = load_all(s, &data, 0, warnings, err);
      s->path = keep;
    }
    dbuf_free(&data);
  }
  free(gz);
  return rc;
}

int store_exists(const char *path) {
  if (file_exists(path)) return 1;
  char *gz = packed_path(path);
  const int there = gz && file_exists(gz);
  free(gz);
  return there;
}

int store_load(const char *path, store **out, dbuf *warnings, cterr *err) {
  dbuf data;
  dbuf_init(&data);
  *out = NULL;
  /* read-only: a gzip-compressed store (results.jsonl.gz) reads as well, within the data cap;
   * a store whose records are all in its compressed part has no plain file */
  const int packed_only = !file_exists(path) && store_exists(path);
  if (!packed_only && input_read(path, "results file", input_data_max(), 1, &data, err)) return -1;
  store *s = store_new(path);
  int rc = load_packed(s, path, warnings, err);
  if (rc == 0) rc = load_all(s, &data, 0, warnings, err);
  dbuf_free(&data);
  if (rc) {
    store_close(s);
    return -1;
  }
  *out = s;
  return 0;
}

/* Take <path>.lock; if another process holds it, say which. */
static int take_lock(store *s, cterr *err) {
  char *lp = xasprintf("%s.lock", s->path);
  int rc = -1;
  s->lock_fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (s->lock_fd < 0) {
    cterr_set(err, "cannot open lock file %s: %s", lp, strerror(errno));
    goto out;
  }
  if (flock(s->lock_fd, LOCK_EX | LOCK_NB)) {
    if (errno != EWOULDBLOCK) {
      cterr_set(err, "cannot lock %s: %s", lp, strerror(errno));
      goto out;
    }
    char pid[32] = "";
    ssize_t n = pread(s->lock_fd, pid, sizeof pid - 1, 0);
    pid[n > 0 ? n : 0] = 0;
    pid[strcspn(pid, "\n")] = 0;
    cterr_set(err, "%s is in use by another cutune run (pid %s)", s->path, *pid ? pid : "unknown");
    goto out;
  }
  char buf[32];
  int len = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
  if (ftruncate(s->lock_fd, 0) || pwrite(s->lock_fd, buf, (size_t)len, 0) != len) {
    cterr_set(err, "cannot write lock file %s: %s", lp, strerror(errno));
    goto out;
  }
  rc = 0;
out:
  if (rc && s->lock_fd >= 0) close(s->lock_fd), s->lock_fd = -1;
  free(lp);
  return rc;
}

/* A new file's directory entry must reach the disk too, or a crash can lose the file. */
static void sync_dir(const char *path) {
  char *d = path_dirname(path);
  int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) fsync(fd), close(fd);
  free(d);
}

int store_open(const char *path, store **out, dbuf *warnings, cterr *err) {
  dbuf data;
  dbuf_init(&data);
  *out = NULL;
  char *dir = path_dirname(path);
  int rc = mkdir_p(dir, err);
  free(dir);
  if (rc) return -1;
  store *s = store_new(path);
  if (take_lock(s, err)) goto fail;
  int existed = file_exists(path);
  /* O_CLOEXEC: workers are exec'd; they must not inherit the store or its lock */
  s->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (s->fd < 0) {
    cterr_set(err, "cannot open %s: %s", path, strerror(errno));
    goto fail;
  }
  if (!existed) sync_dir(path);
  if (load_packed(s, path, warnings, err) || file_read(path, &data, err) || load_all(s, &data, 1, warnings, err))
    goto fail;
  dbuf_free(&data);
  *out = s;
  return 0;
fail:
  dbuf_free(&data);
  store_close(s);
  return -1;
}

int store_append(store *s, const record *r, cterr *err) {
  if (s->fd < 0) return cterr_set(err, "%s: store was opened read-only", s->path);
  if (!r->config || !r->problem) return cterr_set(err, "%s: record without config or problem", s->path);
  dbuf line;
  dbuf_init(&line);
  record_to_json(r, &line);
  dbuf_puts(&line, "\n");
  int rc = 0;
  if (write_all(s->fd, line.data, line.len)) {
    cterr_set(err, "cannot append to %s: %s", s->path, strerror(errno));
    /* leave no partial line behind (disk full): we are the only writer, so size is exact */
    if (ftruncate(s->fd, s->size) == 0) fsync(s->fd);
    rc = -1;
  } else if (fsync(s->fd)) {
    rc = cterr_set(err, "cannot sync %s: %s", s->path, strerror(errno));
  }
  if (rc == 0) {
    s->size += (off_t)line.len;
    record copy;
    record_copy(&copy, r);
    store_add(s, &copy);
  }
  dbuf_free(&line);
  return rc;
}

void store_close(store *s) {
  if (!s) return;
  if (s->fd >= 0) close(s->fd);
  if (s->lock_fd >= 0) {
    /* empty the pid so a stale number never misleads; the file stays (removing it would
     * race with a run that is just opening it) */
    if (ftruncate(s->lock_fd, 0)) { /* nothing useful to do */
    }
    close(s->lock_fd);
  }
  for (size_t i = 0; i < s->n; i++) {
    record_free(s->recs[i]);
    free(s->recs[i]);
  }
  free(s->recs);
  free(s->prev);
  free(s->slot);
  free(s->path);
  free(s);
}
