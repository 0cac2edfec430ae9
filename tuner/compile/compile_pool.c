/* compile_pool: a pool of `cutune __compile-worker` processes fed over pipes.
 *
 * Why processes: NVRTC serialises most of its work inside one process, so threads do not
 * add throughput; separate processes do, and a crash inside NVRTC takes down one worker,
 * not the tuner.
 *
 * Shape: submitted jobs are looked up in the cache first (hits go straight to the `ready`
 * list); misses wait in `todo` until a worker is idle. cpool_wait hands jobs to idle
 * workers (starting workers lazily, up to nworkers), then polls the busy workers' result
 * pipes and returns whichever finishes first. A worker whose pipe reaches EOF has died:
 * it is reaped, its job is answered with an error naming the signal or exit status, and
 * a fresh worker is started for the next job. Every pipe is O_CLOEXEC so no worker
 * inherits another's ends (a leaked write end would hide a death from us).
 *
 * A job whose cache key matches one already queued or compiling (configurations that differ
 * only in runtime parameters: space.h) is not compiled again: it follows that job and gets a
 * copy of its result (marked shared) when it finishes, cache or no cache. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "compile_wire.h"
#include "base/proc.h"


typedef struct jobitem {
  struct jobitem *next;
  uint64_t tag;
  char key[65];
  wire_job wj;
  int send_failures;  /* workers found dead when handed this job */
  compile_result res; /* filled once finished (items on the ready list) */
  struct jobitem *followers, *fnext; /* jobs of the same key waiting for this one's result */
} jobitem;

typedef struct worker {
  proc pr;       /* the process and its stdin/stdout */
  jobitem *job;  /* being compiled; NULL when idle */
  double deadline; /* when its job must be done (now_seconds) */
  dbuf rx;       /* bytes of the result frame received so far */
} worker;

struct cpool {
  char *self_exe, *cache_dir;
  int nworkers;
  double timeout_s; /* per compile */
  int resources_only; /* cache hits without their cubin */
  worker *w;
  jobitem *todo_head, *todo_tail, *ready_head, *ready_tail;
  size_t pending;
};

static void push(jobitem **head, jobitem **tail, jobitem *it) {
  it->next = NULL;
  if (*tail) (*tail)->next = it;
  else *head = it;
  *tail = it;
}
static void push_front(jobitem **head, jobitem **tail, jobitem *it) {
  it->next = *head;
  *head = it;
  if (!*tail) *tail = it;
}
static jobitem *pop(jobitem **head, jobitem **tail) {
  jobitem *it = *head;
  if (it) {
    *head = it->next;
    if (!*head) *tail = NULL;
  }
  return it;
}
static void item_free(jobitem *it) {
  while (it->followers) {
    jobitem *f = it->followers;
    it->followers = f->fnext;
    item_free(f);
  }
  wire_job_free(&it->wj);
  compile_result_free(&it->res);
  free(it);
}

/* A finished job to the ready list, and after it each job that followed it, with a copy of
 * its result. */
static void finish(cpool *p, jobitem *it) {
  jobitem *f = it->followers;
  it->followers = NULL;
  push(&p->ready_head, &p->ready_tail, it);
  while (f) {
    jobitem *n = f->fnext;
    compile_result_free(&f->res);
    compile_result_copy(&f->res, &it->res);
    f->res.shared = 1;
    memcpy(f->res.key, f->key, 65);
    push(&p->ready_head, &p->ready_tail, f);
    f = n;
  }
}

/* The queued or compiling job of this key, if any. */
static jobitem *in_flight(cpool *p, const char *key) {
  for (jobitem *it = p->todo_head; it; it = it->next)
    if (!strcmp(it->key, key)) return it;
  for (int i = 0; i < p->nworkers; i++)
    if (p->w[i].job && !strcmp(p->w[i].job->key, key)) return p->w[i].job;
  return NULL;
}

static int worker_start(cpool *p, worker *w, cterr *err) {
  /* No cache means no cache: NVRTC (CUDA 12.9+) keeps compiled programs of its own in the
   * driver's compute cache (~/.nv/ComputeCache) where a driver is present, which answered
   * about half of a second "cold" matmul run on the H200 in ~20 ms each. The worker turns it
   * off for itself (CUDA_CACHE_DISABLE=1); this process's environment stays as it was. */
  char *argv[] = {p->self_exe, "__compile-worker", p->cache_dir ? NULL : COMPILE_WORKER_NO_NVRTC_CACHE, NULL};
  int rc = proc_spawn(&w->pr, p->self_exe, argv, 0);
  if (rc != 0)
    return cterr_set(err, "compile pool: cannot start worker '%s __compile-worker': %s", p->self_exe, strerror(rc));
  w->job = NULL;
  dbuf_reset(&w->rx);
  return 0;
}

/* Close a worker's pipes and reap it; describe how it ended in `why`. */
static void worker_reap(worker *w, int kill_first, char *why, size_t whylen) {
  if (w->pr.pid <= 0) return;
  proc_reap(&w->pr, kill_first, -1, why, whylen);
  dbuf_reset(&w->rx);
}

/* Signals that end a worker from outside (a user, a supervisor, the OOM killer), as opposed to
 * a crash of NVRTC on the job's input (SIGSEGV, SIGABRT, ...). */
static int killed_from_outside(int sig) {
  return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
}

/* The worker died (or spoke nonsense, or overran: timed_out) mid-job: its job fails. */
static void worker_failed(cpool *p, worker *w, int kill_first, const char *what, int timed_out) {
  char why[160];
  why[0] = 0;
  pid_t pid = w->pr.pid;
  jobitem *it = w->job;
  double ran_ms = (now_seconds() - (w->deadline - p->timeout_s)) * 1e3; /* since the job was handed over */
  worker_reap(w, kill_first, why, sizeof why);
  w->job = NULL;
  if (!it) return;
  compile_result_init(&it->res);
  it->res.timed_out = timed_out;
  if (timed_out) it->res.compile_ms = ran_ms; /* how long it ran before it was killed (resume compares it) */
  it->res.lost = !kill_first && killed_from_outside(w->pr.last_signal);
  dbuf m;
  dbuf_init(&m);
  const compile_job *j = &it->wj.job;
  if (timed_out)
    dbuf_printf(&m, "%s: compiling kernel '%s' took longer than %g s (--compile-timeout); the compile worker (pid %ld) "
                "was killed [compiled with", j->src_path ? j->src_path : "kernel.cu", j->kernel, p->timeout_s, (long)pid);
  else
    dbuf_printf(&m, "%s: compile worker (pid %ld) %s%s%s while compiling kernel '%s'%s [compiled with",
                j->src_path ? j->src_path : "kernel.cu", (long)pid, what ? what : "", what ? "; it " : "", why, j->kernel,
                it->res.lost ? " (killed from outside: not the configuration's fault; a resumed run retries it)" : "");
  for (int i = 0; i < j->nopts; i++) dbuf_printf(&m, " %s", j->opts[i]);
  dbuf_printf(&m, "%s for %s]", j->nopts ? "" : " no options", j->arch);
  it->res.message = dbuf_steal(&m);
  memcpy(it->res.key, it->key, 65);
  finish(p, it);
}

int cpool_new(cpool **out, const char *self_exe, int nworkers, const char *cache_dir, cterr *err) {
  *out = NULL;
  if (!self_exe || !self_exe[0]) return cterr_set(err, "compile pool: no path to the cutune binary for its workers");
  if (nworkers <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    nworkers = n > 0 ? (int)n : 1;
  }
  if (nworkers > 1024) return cterr_set(err, "compile pool: %d workers asked, at most 1024 expected", nworkers);
  cpool *p = xcalloc(1, sizeof *p);
  p->self_exe = xstrdup(self_exe);
  p->cache_dir = cache_dir ? xstrdup(cache_dir) : NULL;
  p->nworkers = nworkers;
  p->timeout_s = COMPILE_TIMEOUT_S;
  p->w = xcalloc((size_t)nworkers, sizeof *p->w);
  for (int i = 0; i < nworkers; i++) {
    proc_init(&p->w[i].pr);
    dbuf_init(&p->w[i].rx);
  }
  *out = p;
  return 0;
}

void cpool_set_timeout(cpool *p, double seconds) {
  if (p && seconds > 0) p->timeout_s = seconds;
}

void cpool_set_resources_only(cpool *p, int on) {
  if (p) p->resources_only = on;
}

int cpool_submit(cpool *p, uint64_t tag, const compile_job *job, cterr *err) {
  if (!job || !job->src || !job->kernel || !job->arch)
    return cterr_set(err, "compile pool: job %llu lacks %s", (unsigned long long)tag,
                     !job ? "everything" : !job->src ? "source" : !job->kernel ? "a kernel name" : "an architecture");
  if (job->nopts < 0 || job->nopts > COMPILE_MAX_OPTS)
    return cterr_set(err, "compile pool: job %llu has %d options, at most %d allowed", (unsigned long long)tag,
                     job->nopts, COMPILE_MAX_OPTS);
  jobitem *it = xcalloc(1, sizeof *it);
  it->tag = tag;
  compile_result_init(&it->res);
  compile_job_key(job, it->key);
  p->pending++;
  if (p->cache_dir && (p->resources_only ? compile_cache_get_resources : compile_cache_get)(p->cache_dir, it->key, &it->res)) {
    push(&p->ready_head, &p->ready_tail, it);
    return 0;
  }
  jobitem *lead = in_flight(p, it->key);
  if (lead) {
    it->fnext = lead->followers;
    lead->followers = it;
    return 0;
  }
  wire_job_copy(&it->wj, job);
  push(&p->todo_head, &p->todo_tail, it);
  return 0;
}

size_t cpool_pending(const cpool *p) { return p ? p->pending : 0; }

/* Give queued jobs to idle workers. -1 only when no worker can run at all. */
static int dispatch(cpool *p, cterr *err) {
  dbuf frame;
  dbuf_init(&frame);
  int rc = 0;
  for (int i = 0; i < p->nworkers && p->todo_head; i++) {
    worker *w = &p->w[i];
    if (w->job) continue;
    if (w->pr.pid <= 0 && worker_start(p, w, err) != 0) {
      int busy = 0;
      for (int k = 0; k < p->nworkers; k++) busy += p->w[k].job != NULL;
      if (!busy && !p->ready_head) rc = -1;
      break;
    }
    jobitem *it = pop(&p->todo_head, &p->todo_tail);
    dbuf_reset(&frame);
    wire_encode_job(&frame, &it->wj.job);
    w->job = it;
    w->deadline = now_seconds() + p->timeout_s;
    if (wire_write_all(w->pr.to, frame.data, frame.len) == 0) continue;
    /* The worker died while idle (killed from outside, say): the job never reached it,
     * so it goes back to the queue for a fresh worker, a few times at most, so a worker
     * that cannot live at all ends in an error rather than a loop. */
    if (++it->send_failures < 3) {
      worker_reap(w, 1, NULL, 0);
      w->job = NULL;
      push_front(&p->todo_head, &p->todo_tail, it);
      i--; /* start a fresh worker in this slot */
    } else {
      worker_failed(p, w, 1, "could not be sent the job", 0);
    }
  }
  dbuf_free(&frame);
  return rc;
}

/* A complete result frame sits in w->rx: decode it, cache it, queue it. */
static void take_result(cpool *p, worker *w, size_t body_len) {
  jobitem *it = w->job;
  compile_result_init(&it->res);
  if (wire_decode_result(w->rx.data + 4, body_len, &it->res) != 0) {
    worker_failed(p, w, 1, "sent a malformed result", 0);
    return;
  }
  w->job = NULL;
  size_t rest = w->rx.len - 4 - body_len;
  memmove(w->rx.data, w->rx.data + 4 + body_len, rest);
  w->rx.len = rest;
  memcpy(it->res.key, it->key, 65);
  /* A cache write that fails (full disk, read-only folder) costs a recompile next time,
   * nothing more: the result itself is good. */
  if (p->cache_dir) compile_cache_put(p->cache_dir, it->key, &it->res, NULL);
  finish(p, it);
}

static void read_worker(cpool *p, worker *w) {
  char buf[65536];
  ssize_t r;
  while ((r = read(w->pr.from, buf, sizeof buf)) < 0 && errno == EINTR) {
  }
  if (r <= 0) {
    worker_failed(p, w, 0, NULL, 0);
    return;
  }
  dbuf_append(&w->rx, buf, (size_t)r);
  if (w->rx.len < 4) return;
  uint32_t len;
  memcpy(&len, w->rx.data, 4);
  if (len > WIRE_MAX_FRAME) worker_failed(p, w, 1, "sent an oversized frame", 0);
  else if (w->rx.len >= 4 + (size_t)len) take_result(p, w, len);
}

static int deliver(cpool *p, uint64_t *tag, compile_result *res) {
  jobitem *it = pop(&p->ready_head, &p->ready_tail);
  *tag = it->tag;
  *res = it->res; /* moves ownership of the buffers */
  compile_result_init(&it->res);
  item_free(it);
  p->pending--;
  return 1;
}

int cpool_wait(cpool *p, uint64_t *tag, compile_result *res, int timeout_ms, cterr *err) {
  compile_result_init(res);
  double deadline = timeout_ms < 0 ? -1 : now_seconds() + timeout_ms / 1e3;
  struct pollfd *fds = xcalloc((size_t)p->nworkers, sizeof *fds);
  int *who = xcalloc((size_t)p->nworkers, sizeof *who);
  int rc = 0;
  for (;;) {
    if (p->ready_head) {
      rc = deliver(p, tag, res);
      break;
    }
    if (dispatch(p, err) != 0) {
      rc = -1;
      break;
    }
    if (p->ready_head) continue;
    /* a compile past its deadline (hung, or its worker stopped): kill the worker */
    double now = now_seconds(), next = -1;
    for (int i = 0; i < p->nworkers; i++) {
      worker *w = &p->w[i];
      if (!w->job) continue;
      if (now >= w->deadline) {
        /* a result may be sitting in the pipe (we were away): take it before judging */
        struct pollfd pf = {.fd = w->pr.from, .events = POLLIN};
        while (w->job && poll(&pf, 1, 0) > 0 && pf.revents) read_worker(p, w);
        if (w->job) worker_failed(p, w, 1, NULL, 1);
      } else if (next < 0 || w->deadline < next) next = w->deadline;
    }
    if (p->ready_head) continue;
    int n = 0;
    for (int i = 0; i < p->nworkers; i++)
      if (p->w[i].job) fds[n] = (struct pollfd){.fd = p->w[i].pr.from, .events = POLLIN}, who[n++] = i;
    if (n == 0) break; /* nothing pending */
    int wait_ms = -1;
    if (deadline >= 0) {
      double left = deadline - now;
      if (left <= 0) break;
      wait_ms = (int)(left * 1e3) + 1;
    }
    if (next >= 0) {
      int until_next = (int)((next - now) * 1e3) + 1;
      if (wait_ms < 0 || until_next < wait_ms) wait_ms = until_next;
    }
    int got = poll(fds, (nfds_t)n, wait_ms);
    if (got < 0) {
      if (errno == EINTR) continue;
      rc = cterr_set(err, "compile pool: poll failed: %s", strerror(errno));
      break;
    }
    for (int k = 0; k < n && got > 0; k++)
      if (fds[k].revents) read_worker(p, &p->w[who[k]]);
  }
  free(fds);
  free(who);
  return rc;
}

/* Each job of `it` and its followers to `drop`, then freed. */
static void drop_item(jobitem *it, void (*drop)(void *ctx, uint64_t tag), void *ctx, size_t *n) {
  while (it->followers) {
    jobitem *f = it->followers;
    it->followers = f->fnext;
    f->followers = NULL;
    drop_item(f, drop, ctx, n);
  }
  if (drop) drop(ctx, it->tag);
  (*n)++;
  item_free(it);
}

size_t cpool_cancel(cpool *p, void (*drop)(void *ctx, uint64_t tag), void *ctx) {
  if (!p) return 0;
  size_t n = 0;
  jobitem *it;
  for (int i = 0; i < p->nworkers; i++) {
    worker *w = &p->w[i];
    if (!w->job) continue;
    worker_reap(w, 1, NULL, 0); /* started again, lazily, by the next dispatch */
    it = w->job;
    w->job = NULL;
    drop_item(it, drop, ctx, &n);
  }
  while ((it = pop(&p->todo_head, &p->todo_tail))) drop_item(it, drop, ctx, &n);
  while ((it = pop(&p->ready_head, &p->ready_tail))) drop_item(it, drop, ctx, &n);
  p->pending = 0;
  return n;
}

void cpool_free(cpool *p) {
  if (!p) return;
  /* Idle workers see EOF on stdin and exit; busy ones are killed (their results are no
   * longer wanted, and waiting for a long compile would stall the caller). */
  for (int i = 0; i < p->nworkers; i++) {
    worker *w = &p->w[i];
    if (w->pr.pid > 0 && !w->job) close(w->pr.to), w->pr.to = -1;
  }
  for (int i = 0; i < p->nworkers; i++) {
    worker *w = &p->w[i];
    if (w->pr.pid > 0) worker_reap(w, w->job != NULL, NULL, 0);
    if (w->job) item_free(w->job);
    dbuf_free(&w->rx);
  }
  jobitem *it;
  while ((it = pop(&p->todo_head, &p->todo_tail))) item_free(it);
  while ((it = pop(&p->ready_head, &p->ready_tail))) item_free(it);
  free(p->w);
  free(p->self_exe);
  free(p->cache_dir);
  free(p);
}
