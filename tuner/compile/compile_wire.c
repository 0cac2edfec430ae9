/* compile_wire: frames between the compile pool and its workers, and the worker's main
 * loop (the hidden `cutune __compile-worker` subcommand). See compile_wire.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compile_wire.h"

#define MAGIC_JOB 0x424f4a43u   /* "CJOB" */
#define MAGIC_RES 0x53455243u   /* "CRES" */
#define MAGIC_BATCH 0x48544243u /* "CBTH": several jobs, one NVRTC program */
#define NULL_LEN 0xffffffffu

/* ---- owned copies of jobs ---- */

static const char *own(wire_job *j, const char *s) {
  if (!s) return NULL;
  char *c = xstrdup(s);
  j->strs[j->nstrs++] = c;
  return c;
}

void wire_job_copy(wire_job *dst, const compile_job *src) {
  memset(dst, 0, sizeof *dst);
  dst->job.src_path = own(dst, src->src_path);
  dst->job.src = own(dst, src->src);
  dst->job.kernel = own(dst, src->kernel);
  dst->job.arch = own(dst, src->arch);
  dst->job.lineinfo = src->lineinfo;
  dst->job.twice = src->twice;
  dst->job.alone = src->alone;
  dst->job.nopts = src->nopts;
  for (int i = 0; i < src->nopts && i < COMPILE_MAX_OPTS; i++) dst->job.opts[i] = own(dst, src->opts[i]);
  dst->job.nnames = src->nnames;
  for (int i = 0; i < src->nnames && i < COMPILE_MAX_NAMES; i++) dst->job.names[i] = own(dst, src->names[i]);
  if (src->next) {
    dst->next = xmalloc(sizeof *dst->next);
    wire_job_copy(dst->next, src->next);
    dst->job.next = &dst->next->job;
  }
}

void wire_job_free(wire_job *j) {
  if (j->next) wire_job_free(j->next), free(j->next);
  for (int i = 0; i < j->nstrs; i++) free(j->strs[i]);
  memset(j, 0, sizeof *j);
}

/* ---- encoding ---- */

static void put_u32(dbuf *b, uint32_t v) { dbuf_append(b, &v, sizeof v); }
static void put_i32(dbuf *b, int v) { put_u32(b, (uint32_t)v); }
static void put_f64(dbuf *b, double v) { dbuf_append(b, &v, sizeof v); }
static void put_bytes(dbuf *b, const char *p, size_t n) {
  put_u32(b, (uint32_t)n);
  dbuf_append(b, p ? p : "", n);
}
static void put_str(dbuf *b, const char *s) {
  if (!s) put_u32(b, NULL_LEN);
  else put_bytes(b, s, strlen(s));
}

/* Reserve the length word, return its offset; finish_frame fills it in. */
static size_t start_frame(dbuf *b) {
  size_t at = b->len;
  put_u32(b, 0);
  return at;
}
static void finish_frame(dbuf *b, size_t at) {
  uint32_t n = (uint32_t)(b->len - at - 4);
  memcpy(b->data + at, &n, 4);
}

void wire_encode_job(dbuf *out, const compile_job *job) {
  size_t at = start_frame(out);
  put_u32(out, MAGIC_JOB);
  put_str(out, job->src_path);
  put_str(out, job->src);
  put_str(out, job->kernel);
  put_str(out, job->arch);
  put_i32(out, job->lineinfo);
  put_i32(out, job->twice);
  put_i32(out, job->alone);
  put_i32(out, job->nopts);
  for (int i = 0; i < job->nopts; i++) put_str(out, job->opts[i]);
  put_i32(out, job->nnames);
  for (int i = 0; i < job->nnames; i++) put_str(out, job->names[i]);
  put_i32(out, job->next != NULL);
  if (job->next) { /* the rest of the chain: its frame's body, inside this one */
    dbuf rest;
    dbuf_init(&rest);
    wire_encode_job(&rest, job->next);
    put_bytes(out, rest.data + 4, rest.len - 4);
    dbuf_free(&rest);
  }
  finish_frame(out, at);
}

void wire_encode_batch(dbuf *out, const compile_job *const *jobs, int n) {
  if (n == 1) {
    wire_encode_job(out, jobs[0]);
    return;
  }
  size_t at = start_frame(out);
  put_u32(out, MAGIC_BATCH);
  put_i32(out, n);
  dbuf one;
  dbuf_init(&one);
  for (int i = 0; i < n; i++) { /* each member: a job frame's body */
    dbuf_reset(&one);
    wire_encode_job(&one, jobs[i]);
    put_bytes(out, one.data + 4, one.len - 4);
  }
  dbuf_free(&one);
  finish_frame(out, at);
}

void wire_encode_result(dbuf *out, const compile_result *r) {
  size_t at = start_frame(out);
  put_u32(out, MAGIC_RES);
  put_i32(out, r->ok);
  put_i32(out, r->res.regs);
  put_i32(out, r->res.smem_static);
  put_i32(out, r->res.local_bytes);
  put_i32(out, r->res.spill_stores);
  put_i32(out, r->res.spill_loads);
  put_f64(out, r->compile_ms);
  put_str(out, r->key);
  put_str(out, r->message);
  put_bytes(out, r->log.data, r->log.len);
  put_bytes(out, r->cubin.data, r->cubin.len);
  put_str(out, r->lowered);
  put_i32(out, r->batch);
  put_i32(out, r->retry);
  finish_frame(out, at);
}

/* ---- decoding: a cursor that fails once and stays failed ---- */

typedef struct cursor {
  const char *p;
  size_t left;
  int bad;
} cursor;

static int take(cursor *c, void *dst, size_t n) {
  if (c->bad || c->left < n) return c->bad = 1, -1;
  memcpy(dst, c->p, n);
  c->p += n, c->left -= n;
  return 0;
}
static uint32_t get_u32(cursor *c) {
  uint32_t v = 0;
  take(c, &v, sizeof v);
  return v;
}
static double get_f64(cursor *c) {
  double v = 0;
  take(c, &v, sizeof v);
  return v;
}
/* Points into the body; *len set. NULL for a NULL string or on error. */
static const char *get_bytes(cursor *c, size_t *len) {
  uint32_t n = get_u32(c);
  *len = 0;
  if (c->bad || n == NULL_LEN) return NULL;
  if (c->left < n) return c->bad = 1, NULL;
  const char *s = c->p;
  c->p += n, c->left -= n, *len = n;
  return s;
}
static char *get_str(cursor *c) {
  size_t n;
  const char *s = get_bytes(c, &n);
  if (!s) return NULL;
  char *out = xmalloc(n + 1);
  memcpy(out, s, n);
  out[n] = 0;
  return out;
}

int wire_decode_job(const char *body, size_t n, wire_job *out) {
  memset(out, 0, sizeof *out);
  cursor c = {body, n, 0};
  if (get_u32(&c) != MAGIC_JOB) return -1;
  char *s[4];
  for (int i = 0; i < 4; i++) s[i] = out->strs[out->nstrs++] = get_str(&c);
  out->job.src_path = s[0], out->job.src = s[1], out->job.kernel = s[2], out->job.arch = s[3];
  out->job.lineinfo = (int)get_u32(&c);
  out->job.twice = (int)get_u32(&c);
  out->job.alone = (int)get_u32(&c);
  int nopts = (int)get_u32(&c);
  if (c.bad || nopts < 0 || nopts > COMPILE_MAX_OPTS) goto bad;
  out->job.nopts = nopts;
  for (int i = 0; i < nopts; i++) {
    char *o = get_str(&c);
    out->strs[out->nstrs++] = o;
    out->job.opts[i] = o;
    if (!o) goto bad;
  }
  int nnames = (int)get_u32(&c);
  if (c.bad || nnames < 0 || nnames > COMPILE_MAX_NAMES) goto bad;
  out->job.nnames = nnames;
  for (int i = 0; i < nnames; i++) {
    char *o = get_str(&c);
    out->strs[out->nstrs++] = o;
    out->job.names[i] = o;
    if (!o) goto bad;
  }
  if (get_u32(&c)) {
    size_t rl;
    const char *rest = get_bytes(&c, &rl);
    out->next = xmalloc(sizeof *out->next);
    if (!rest || wire_decode_job(rest, rl, out->next) != 0) {
      free(out->next), out->next = NULL;
      goto bad;
    }
    out->job.next = &out->next->job;
  }
  if (c.bad || c.left || !out->job.src || !out->job.kernel || !out->job.arch) goto bad;
  return 0;
bad:
  wire_job_free(out);
  return -1;
}

int wire_decode_jobs(const char *body, size_t n, wire_job *out, int max, int *count) {
  *count = 0;
  cursor c = {body, n, 0};
  uint32_t magic = get_u32(&c);
  if (magic == MAGIC_JOB) {
    if (max < 1 || wire_decode_job(body, n, &out[0]) != 0) return -1;
    *count = 1;
    return 0;
  }
  int k = (int)get_u32(&c);
  if (magic != MAGIC_BATCH || c.bad || k < 2 || k > max) return -1;
  for (int i = 0; i < k; i++) {
    size_t len;
    const char *one = get_bytes(&c, &len);
    if (!one || wire_decode_job(one, len, &out[i]) != 0) {
      while (i > 0) wire_job_free(&out[--i]);
      return -1;
    }
  }
  if (c.left) {
    for (int i = 0; i < k; i++) wire_job_free(&out[i]);
    return -1;
  }
  *count = k;
  return 0;
}

int wire_decode_result(const char *body, size_t n, compile_result *r) {
  cursor c = {body, n, 0};
  if (get_u32(&c) != MAGIC_RES) return -1;
  r->ok = (int)get_u32(&c);
  r->res.regs = (int)get_u32(&c);
  r->res.smem_static = (int)get_u32(&c);
  r->res.local_bytes = (int)get_u32(&c);
  r->res.spill_stores = (int)get_u32(&c);
  r->res.spill_loads = (int)get_u32(&c);
  r->compile_ms = get_f64(&c);
  size_t len;
  const char *key = get_bytes(&c, &len);
  if (key && len == 64) memcpy(r->key, key, 64), r->key[64] = 0;
  r->message = get_str(&c);
  const char *log = get_bytes(&c, &len);
  if (log) dbuf_append(&r->log, log, len);
  const char *cubin = get_bytes(&c, &len);
  if (cubin) dbuf_append(&r->cubin, cubin, len);
  r->lowered = get_str(&c);
  r->batch = (int)get_u32(&c);
  r->retry = (int)get_u32(&c);
  if (c.bad || c.left) {
    compile_result_free(r);
    return -1;
  }
  return 0;
}

/* ---- pipes ---- */

int wire_write_all(int fd, const void *p, size_t n) {
  /* Block SIGPIPE around the write and swallow the one it raises, instead of ignoring
   * SIGPIPE process-wide (which would change how `cutune ... | head` behaves). */
  sigset_t pipe_set, old, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  sigpending(&pending);
  int was_pending = sigismember(&pending, SIGPIPE);
  const char *c = p;
  int rc = 0;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      rc = -1;
      break;
    }
    c += w, n -= (size_t)w;
  }
  if (rc != 0 && errno == EPIPE && !was_pending) {
    int saved = errno;
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR) {
    }
    errno = saved;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

/* 1 read, 0 clean EOF before any byte, -1 error or EOF mid-way. */
static int read_exact(int fd, void *dst, size_t n) {
  char *c = dst;
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, c + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return (r == 0 && got == 0) ? 0 : -1;
    got += (size_t)r;
  }
  return 1;
}

/* ---- the worker process ---- */

#ifdef CUTUNE_TEST_HOOKS
/* Whether the job's source or one of its options contains marker (a test hook). */
static int job_has_marker(const compile_job *j, const char *marker) {
  if (!marker || !marker[0]) return 0;
  if (strstr(j->src, marker)) return 1;
  for (int i = 0; i < j->nopts; i++)
    if (!strcmp(j->opts[i], marker)) return 1;
  return 0;
}

/* Test hooks, only in the test binary cutune-hooks (CMake option CUTUNE_TEST_HOOKS; the shipped
 * cutune has none): a job whose source (or one of whose options) contains the marker in
 * CUTUNE_COMPILE_WORKER_CRASH kills the worker with SIGKILL (killed from outside), ..._ABORT
 * makes it abort (a crash inside the compiler), ..._STOP stops it with SIGSTOP (a hung
 * compile), to exercise the pool's recovery, classification and deadline. */
static void test_hooks(const compile_job *j) {
  if (job_has_marker(j, getenv("CUTUNE_COMPILE_WORKER_CRASH"))) raise(SIGKILL);
  if (job_has_marker(j, getenv("CUTUNE_COMPILE_WORKER_ABORT"))) abort();
  if (job_has_marker(j, getenv("CUTUNE_COMPILE_WORKER_STOP"))) raise(SIGSTOP);
}
#else
static void test_hooks(const compile_job *j) { (void)j; }
#endif

int compile_worker_main(int no_nvrtc_cache) {
  if (no_nvrtc_cache) setenv("CUDA_CACHE_DISABLE", "1", 1); /* before NVRTC first runs */
  /* Results go out on a private copy of stdout; fd 1 itself is pointed at stderr so that
   * nothing else printed in this process (a library's chatter) can corrupt a frame. */
  int out = dup(1);
  if (out < 0 || dup2(2, 1) < 0) {
    fprintf(stderr, "cutune compile worker: cannot set up its output: %s\n", strerror(errno));
    return 2;
  }
  dbuf frame;
  dbuf_init(&frame);
  int status = 0;
  for (;;) {
    uint32_t len;
    int r = read_exact(0, &len, sizeof len);
    if (r == 0) break; /* the pool closed our stdin: done */
    if (r < 0 || len > WIRE_MAX_FRAME) {
      fprintf(stderr, "cutune compile worker: broken job frame on stdin\n");
      status = 2;
      break;
    }
    char *tmp = xmalloc(len ? len : 1);
    if (read_exact(0, tmp, len) != 1) {
      free(tmp);
      fprintf(stderr, "cutune compile worker: job frame cut short on stdin\n");
      status = 2;
      break;
    }
    wire_job jobs[COMPILE_BATCH_MAX];
    int n = 0;
    int bad = wire_decode_jobs(tmp, len, jobs, COMPILE_BATCH_MAX, &n);
    free(tmp);
    if (bad) {
      fprintf(stderr, "cutune compile worker: malformed job frame\n");
      status = 2;
      break;
    }
    compile_job cj[COMPILE_BATCH_MAX];
    for (int i = 0; i < n; i++) {
      cj[i] = jobs[i].job;
      test_hooks(&cj[i]);
    }
    /* one result frame per job, in order */
    compile_result res[COMPILE_BATCH_MAX];
    cterr err;
    err.msg[0] = 0;
    static int served;
    double tc = now_seconds();
    int rc = n == 1 ? compile_bundle(&cj[0], &res[0], &err) : compile_now_batch(cj, n, res, &err);
    if (served++ < 2)
      trace_mark("compile worker: %d configuration(s) of %s in %.0f ms", n, cj[0].kernel, (now_seconds() - tc) * 1e3);
    if (rc == 0 && n == 1 && cj[0].twice) { /* the pool's probe: the second compile counts */
      compile_result_free(&res[0]);
      rc = compile_bundle(&cj[0], &res[0], &err);
    }
    if (rc != 0)
      for (int i = 0; i < n; i++) {
        compile_result_free(&res[i]);
        res[i].ok = 0;
        res[i].message = xstrdup(err.msg);
        res[i].retry = n > 1; /* NVRTC could not run on the batch: each alone says why */
      }
    dbuf_reset(&frame);
    for (int i = 0; i < n; i++) {
      wire_encode_result(&frame, &res[i]);
      compile_result_free(&res[i]);
      wire_job_free(&jobs[i]);
    }
    if (wire_write_all(out, frame.data, frame.len) != 0) break; /* the pool went away */
  }
  dbuf_free(&frame);
  close(out);
  return status;
}
