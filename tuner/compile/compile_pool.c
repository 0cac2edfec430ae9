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
 * copy of its result (marked shared) when it finishes, cache or no cache. Without a cache
 * (--no-cache) the pool also remembers the results it compiled, for its own life (the memo,
 * up to MEMO_MAX_BYTES of images): a job of a key compiled earlier in the run gets a copy
 * (marked shared) instead of a second compile, as it would get the cache's entry.
 *
 * Batches (compile.h, compile_batch.c): an idle worker is handed up to the batch size of
 * compatible queued jobs as one NVRTC program (fewer when the queue is short, so that every
 * idle worker gets some), with a deadline of --compile-timeout per member. A member its batch
 * could not speak for (the program failed, or lacks its kernel), and every unanswered member of
 * a batch whose worker died or overran, goes back to the front of the queue to be compiled
 * alone, with the usual deadline: errors, crashes, lost workers and timeouts are each one
 * configuration's, as without batches. Except where ptxas refused a member's static shared
 * memory over 48 KB (it reports every entry's resources and names no error): that member gets
 * its own result from the batch's log (invalid, as alone), and the others, which compiled, are
 * batched again (each such failure settles at least one member: no loop). The size: fixed (cpool_set_batch), or automatic: the
 * pool times NVRTC's fixed cost once (an empty program with the jobs' options) and follows the
 * cost per configuration beyond it, and batches as many as keep the fixed share below 5 % of a
 * configuration's cost (1 for compiles of a second or more, up to COMPILE_BATCH_MAX for the
 * tiny ones). A batch that fails halves the size allowed (a success adds one back); one whose
 * members then all compile alone turns batching off for the pool: the template cannot be
 * batched. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <math.h>
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
  int send_failures;                 /* workers found dead when handed this job */
  compile_result res;                /* filled once finished (items on the ready list) */
  struct jobitem *followers, *fnext; /* jobs of the same key waiting for this one's result */
  int alone;                         /* compiled by itself: a member its batch could not speak for */
  int internal;                      /* the pool's probe of NVRTC's fixed cost: never delivered */
  int group;                         /* > 0: the failed batch it was retried from (retry_group) */
} jobitem;

typedef struct worker {
  proc pr;                          /* the process and its stdin/stdout */
  jobitem *jobs[COMPILE_BATCH_MAX]; /* being compiled (njobs > 1: one batch) */
  int njobs, nres;                  /* ... and how many of their results have come back */
  double deadline;                  /* when its jobs must be done (now_seconds) */
  double prog_ms;                   /* the compile_ms of its results so far (the program's cost) */
  double started;                   /* when it was handed its jobs (now_seconds): its busy time */
  int prog_ok, prog_retry;
  int group; /* the retry group of this batch's failed members (0: none yet) */
  dbuf rx;   /* bytes of the result frame received so far */
} worker;

/* The members of one failed batch, compiled alone: when all are back, whether any failed. */
/* Results compiled in this pool's life, by key (open addressing, at most half full), where
 * there is no cache: see the top of the file. */
typedef struct memo_entry {
  char key[65];
  compile_result res;
} memo_entry;
#define MEMO_MAX_BYTES ((size_t)256 << 20)

typedef struct retry_group {
  int id, left, failed;
} retry_group;
#define RETRY_GROUPS 64

struct cpool {
  char *self_exe, *cache_dir;
  int nworkers;
  double timeout_s;                    /* per compile */
  int resources_only;                  /* cache hits without their cubin */
  int batch_opt, batch_cap, batch_off; /* cpool_set_batch (0 auto); the size allowed now; no more */
  double fixed_ms, body_ms;            /* NVRTC's fixed cost per program; the cost per configuration beyond it */
  int probe;                           /* the fixed cost's probe: 0 not started, 1 in flight, 2 done */
  cpool_stats st;
  retry_group grp[RETRY_GROUPS];
  int next_group;
  worker *w;
  jobitem *todo_head, *todo_tail, *ready_head, *ready_tail;
  size_t pending;
  memo_entry *memo; /* no cache: the results compiled so far */
  size_t memo_cap, memo_n, memo_bytes;
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
    for (int k = p->w[i].nres; k < p->w[i].njobs; k++)
      if (!strcmp(p->w[i].jobs[k]->key, key)) return p->w[i].jobs[k];
  return NULL;
}

static size_t memo_slot(const cpool *p, const char *key) {
  size_t i = (size_t)checksum64(key, strlen(key)) & (p->memo_cap - 1);
  while (p->memo[i].key[0] && strcmp(p->memo[i].key, key)) i = (i + 1) & (p->memo_cap - 1);
  return i;
}

/* The result of key compiled earlier in this pool's life (no cache), or NULL. */
static const compile_result *memo_get(const cpool *p, const char *key) {
  if (!p->memo_cap) return NULL;
  const memo_entry *e = &p->memo[memo_slot(p, key)];
  return e->key[0] ? &e->res : NULL;
}

/* Remember a compiled result (no cache): what a cache entry would hold, the image only where
 * the pool delivers images. Past MEMO_MAX_BYTES of images, nothing more is remembered. */
static void memo_put(cpool *p, const char *key, const compile_result *res) {
  if (p->cache_dir || !key[0] || res->timed_out || res->lost || memo_get(p, key)) return;
  size_t bytes = p->resources_only ? 0 : res->cubin.len;
  if (p->memo_bytes + bytes > MEMO_MAX_BYTES) return;
  if (2 * (p->memo_n + 1) > p->memo_cap) {
    memo_entry *old = p->memo;
    size_t oldcap = p->memo_cap;
    p->memo_cap = oldcap ? 2 * oldcap : 256;
    p->memo = xcalloc(p->memo_cap, sizeof *p->memo);
    for (size_t i = 0; i < oldcap; i++)
      if (old[i].key[0]) p->memo[memo_slot(p, old[i].key)] = old[i];
    free(old);
  }
  memo_entry *e = &p->memo[memo_slot(p, key)];
  memcpy(e->key, key, 65);
  compile_result_copy(&e->res, res);
  if (p->resources_only) dbuf_free(&e->res.cubin);
  p->memo_n++, p->memo_bytes += bytes;
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
  w->njobs = w->nres = 0;
  dbuf_reset(&w->rx);
  return 0;
}

/* Close a worker's pipes and reap it; describe how it ended in `why`. */
static void worker_reap(worker *w, int kill_first, char *why, size_t whylen) {
  if (w->pr.pid <= 0) return;
  proc_reap(&w->pr, kill_first, -1, why, whylen);
  dbuf_reset(&w->rx);
}

/* The worker's program ended (done, failed or cancelled): its busy time into the stats. */
static void busy_end(cpool *p, worker *w) {
  if (w->started > 0) p->st.busy_s += now_seconds() - w->started, w->started = 0;
}

/* Signals that end a worker from outside (a user, a supervisor, the OOM killer), as opposed to
 * a crash of NVRTC on the job's input (SIGSEGV, SIGABRT, ...). */
static int killed_from_outside(int sig) { return sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP; }

/* A member of w's batch goes back to the front of the queue, to be compiled alone. When NVRTC
 * ran the batch and it failed (judge), the batch's members form a retry group: whether they
 * then all compile tells whether the template can be batched at all. A batch whose worker died
 * or overran says nothing of that. */
static void retry_alone(cpool *p, worker *w, jobitem *it, int judge) {
  if (judge && !w->group && p->next_group < RETRY_GROUPS) {
    retry_group *g = &p->grp[p->next_group++];
    g->id = p->next_group, g->left = 0, g->failed = 0;
    w->group = g->id;
  }
  if (judge && w->group) p->grp[w->group - 1].left++;
  it->group = judge ? w->group : 0;
  it->alone = 1;
  compile_result_free(&it->res);
  push_front(&p->todo_head, &p->todo_tail, it);
  p->st.retried++;
}

/* An alone member of a failed batch has its result: once the whole group is back, a group
 * none of whose members failed says the template cannot be batched (their batch should have
 * compiled); otherwise a member had a real error (the failed batch has halved the size). */
static void group_result(cpool *p, const jobitem *it) {
  if (it->group <= 0 || it->group > p->next_group) return;
  retry_group *g = &p->grp[it->group - 1];
  g->failed += !it->res.ok;
  if (--g->left == 0 && !g->failed) p->batch_off = 1;
}

/* The worker died (or spoke nonsense, or overran: timed_out) mid-job. A single job fails; the
 * unanswered members of a batch are compiled again, alone. */
static void worker_failed(cpool *p, worker *w, int kill_first, const char *what, int timed_out) {
  char why[160];
  why[0] = 0;
  pid_t pid = w->pr.pid;
  int n = w->njobs, from = w->nres;
  double ran_ms = (now_seconds() - (w->deadline - p->timeout_s * (n > 0 ? n : 1))) * 1e3; /* since handed over */
  worker_reap(w, kill_first, why, sizeof why);
  w->njobs = w->nres = 0;
  busy_end(p, w);
  if (n > 1 || (n == 1 && w->jobs[0]->internal)) {
    if (n > 1) p->batch_cap = p->batch_cap > 2 ? p->batch_cap / 2 : 1; /* a batch that died or overran */
    for (int k = from; k < n; k++) {
      if (w->jobs[k]->internal) item_free(w->jobs[k]), p->probe = 2; /* the fixed cost stays unknown */
      else retry_alone(p, w, w->jobs[k], 0);
    }
    w->group = 0;
    return;
  }
  if (n == 0) return;
  jobitem *it = w->jobs[0];
  compile_result_init(&it->res);
  it->res.timed_out = timed_out;
  if (timed_out) it->res.compile_ms = ran_ms; /* how long it ran before it was killed (resume compares it) */
  it->res.lost = !kill_first && killed_from_outside(w->pr.last_signal);
  dbuf m;
  dbuf_init(&m);
  const compile_job *j = &it->wj.job;
  if (timed_out)
    dbuf_printf(&m,
                "%s: compiling kernel '%s' took longer than %g s (--compile-timeout); the compile worker (pid %ld) "
                "was killed [compiled with",
                j->src_path ? j->src_path : "kernel.cu", j->kernel, p->timeout_s, (long)pid);
  else
    dbuf_printf(&m, "%s: compile worker (pid %ld) %s%s%s while compiling kernel '%s'%s [compiled with",
                j->src_path ? j->src_path : "kernel.cu", (long)pid, what ? what : "", what ? "; it " : "", why,
                j->kernel,
                it->res.lost ? " (killed from outside: not the configuration's fault; a resumed run retries it)" : "");
  for (int i = 0; i < j->nopts; i++) dbuf_printf(&m, " %s", j->opts[i]);
  dbuf_printf(&m, "%s for %s]", j->nopts ? "" : " no options", j->arch);
  it->res.message = dbuf_steal(&m);
  memcpy(it->res.key, it->key, 65);
  group_result(p, it);
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
  p->batch_cap = COMPILE_BATCH_MAX;
  p->fixed_ms = p->body_ms = p->st.fixed_ms = NAN;
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

void cpool_set_batch(cpool *p, int n) {
  if (p) p->batch_opt = n < 0 ? 0 : n > COMPILE_BATCH_MAX ? COMPILE_BATCH_MAX : n;
}

/* The automatic size keeps NVRTC's fixed cost under this share of a configuration's cost. */
#define BATCH_FIXED_SHARE 0.05

int cpool_batch_size(const cpool *p) {
  if (!p || p->batch_off || p->batch_opt == 1) return 1;
  int b = p->batch_opt;
  if (b == 0) { /* automatic: 1 until the fixed cost and a configuration's cost are known */
    if (!isfinite(p->fixed_ms) || !isfinite(p->body_ms)) return 1;
    double body = p->body_ms > 0.5 ? p->body_ms : 0.5;
    double want = ceil(p->fixed_ms / (BATCH_FIXED_SHARE * body));
    b = want >= COMPILE_BATCH_MAX ? COMPILE_BATCH_MAX : want < 1 ? 1 : (int)want;
  }
  return b < p->batch_cap ? b : p->batch_cap;
}

void cpool_get_stats(const cpool *p, cpool_stats *out) {
  *out = p->st;
  out->workers = p->nworkers;
  double now = now_seconds(); /* the programs running now count up to now: two readings bracket an interval */
  for (int i = 0; i < p->nworkers; i++)
    if (p->w[i].started > 0) out->busy_s += now - p->w[i].started;
  out->batch_off = p->batch_off;
  out->fixed_ms = p->fixed_ms;
}

/* The probe of NVRTC's fixed cost for the automatic batch size: an empty kernel with job's
 * architecture and its options other than -D (what every program of the run pays). First in
 * the queue; its result is the pool's own. */
static void queue_probe(cpool *p, const compile_job *job) {
  compile_job pj = {.src_path = "cutune-probe.cu",
                    .src = "extern \"C\" __global__ void cutune_probe(void) {}\n",
                    .kernel = "cutune_probe",
                    .arch = job->arch,
                    .twice = 1};
  for (int i = 0; i < job->nopts; i++)
    if (strncmp(job->opts[i], "-D", 2)) pj.opts[pj.nopts++] = job->opts[i];
  jobitem *it = xcalloc(1, sizeof *it);
  compile_result_init(&it->res);
  compile_job_key(&pj, it->key);
  it->internal = 1;
  wire_job_copy(&it->wj, &pj);
  push_front(&p->todo_head, &p->todo_tail, it);
  p->probe = 1;
}

int cpool_submit(cpool *p, uint64_t tag, const compile_job *job, cterr *err) {
  return cpool_submit_ex(p, tag, job, NULL, err);
}

int cpool_submit_ex(cpool *p, uint64_t tag, const compile_job *job, int *queued, cterr *err) {
  if (queued) *queued = 0;
  if (!job || !job->src || !job->kernel || !job->arch)
    return cterr_set(err, "compile pool: job %llu lacks %s", (unsigned long long)tag,
                     !job           ? "everything"
                     : !job->src    ? "source"
                     : !job->kernel ? "a kernel name"
                                    : "an architecture");
  if (job->nopts < 0 || job->nopts > COMPILE_MAX_OPTS)
    return cterr_set(err, "compile pool: job %llu has %d options, at most %d allowed", (unsigned long long)tag,
                     job->nopts, COMPILE_MAX_OPTS);
  jobitem *it = xcalloc(1, sizeof *it);
  it->tag = tag;
  compile_result_init(&it->res);
  compile_job_key(job, it->key);
  p->pending++;
  if (p->cache_dir &&
      (p->resources_only ? compile_cache_get_resources : compile_cache_get)(p->cache_dir, it->key, &it->res)) {
    push(&p->ready_head, &p->ready_tail, it);
    return 0;
  }
  const compile_result *done = p->cache_dir ? NULL : memo_get(p, it->key);
  if (done) {
    compile_result_copy(&it->res, done);
    it->res.shared = 1;
    memcpy(it->res.key, it->key, 65);
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
  if (queued) *queued = 1;
  if (p->batch_opt == 0 && p->probe == 0 && compile_batch_safe(job)) queue_probe(p, job);
  return 0;
}

size_t cpool_pending(const cpool *p) { return p ? p->pending : 0; }

/* Up to want-1 queued jobs that can share head's program, taken out of the queue (in order). */
static int take_batch(cpool *p, jobitem *head, int want, jobitem **out) {
  int n = 0;
  jobitem *prev = NULL;
  for (jobitem *it = p->todo_head; it && n < want - 1;) {
    jobitem *next = it->next;
    if (!it->alone && !it->internal && compile_batch_compatible(&head->wj.job, &it->wj.job)) {
      if (prev) prev->next = next;
      else p->todo_head = next;
      if (p->todo_tail == it) p->todo_tail = prev;
      out[n++] = it;
    } else {
      prev = it;
    }
    it = next;
  }
  return n;
}

/* Give queued jobs to idle workers, batched where the batch size allows: as many members as
 * the queue holds for each idle worker, up to the size. -1 only when no worker can run at all. */
static int dispatch(cpool *p, cterr *err) {
  dbuf frame;
  dbuf_init(&frame);
  int rc = 0;
  for (int i = 0; i < p->nworkers && p->todo_head; i++) {
    worker *w = &p->w[i];
    if (w->njobs) continue;
    if (w->pr.pid <= 0 && worker_start(p, w, err) != 0) {
      int busy = 0;
      for (int k = 0; k < p->nworkers; k++) busy += p->w[k].njobs > 0;
      if (!busy && !p->ready_head) rc = -1;
      break;
    }
    jobitem *it = pop(&p->todo_head, &p->todo_tail);
    w->jobs[0] = it;
    w->njobs = 1;
    int size = cpool_batch_size(p);
    if (size > 1 && !it->alone && !it->internal && compile_batch_safe(&it->wj.job)) {
      int idle = 0, queued = 1;
      for (int k = 0; k < p->nworkers; k++) idle += p->w[k].njobs == 0;
      for (jobitem *q = p->todo_head; q; q = q->next) queued++;
      int share = (queued + idle) / (idle + 1); /* this worker and the idle ones after it */
      w->njobs += take_batch(p, it, share < size ? share : size, w->jobs + 1);
    }
    const compile_job *jobs[COMPILE_BATCH_MAX];
    for (int k = 0; k < w->njobs; k++) jobs[k] = &w->jobs[k]->wj.job;
    dbuf_reset(&frame);
    wire_encode_batch(&frame, jobs, w->njobs);
    w->nres = 0, w->prog_ms = 0, w->prog_ok = w->prog_retry = 0, w->group = 0;
    w->started = now_seconds();
    w->deadline = w->started + p->timeout_s * w->njobs; /* each member its --compile-timeout */
    int busy = 0;
    for (int k = 0; k < p->nworkers; k++) busy += p->w[k].njobs > 0;
    if (busy > p->st.busy_max) p->st.busy_max = busy;
    if (wire_write_all(w->pr.to, frame.data, frame.len) == 0) continue;
    /* The worker died while idle (killed from outside, say): the jobs never reached it,
     * so they go back to the queue for a fresh worker, a few times at most, so a worker
     * that cannot live at all ends in an error rather than a loop. */
    w->started = 0; /* it never started on them */
    if (++it->send_failures < 3) {
      worker_reap(w, 1, NULL, 0);
      for (int k = w->njobs - 1; k >= 0; k--) push_front(&p->todo_head, &p->todo_tail, w->jobs[k]);
      w->njobs = 0;
      i--; /* start a fresh worker in this slot */
    } else {
      worker_failed(p, w, 1, "could not be sent the job", 0);
    }
  }
  dbuf_free(&frame);
  return rc;
}

/* A program's results are all in: what it says of the batch size and of the cost per
 * configuration beyond the fixed one. */
static void program_done(cpool *p, worker *w) {
  int n = w->njobs;
  busy_end(p, w);
  w->njobs = w->nres = 0;
  if (n == 1 && w->jobs[0] == NULL) return; /* the probe */
  p->st.programs++;
  if (n > p->st.largest) p->st.largest = n;
  if (n > 1) {
    p->st.batches++;
    p->st.batched += w->prog_ok;
    if (w->prog_retry) p->batch_cap = p->batch_cap > 2 ? p->batch_cap / 2 : 1; /* a failed batch */
    else if (p->batch_cap < COMPILE_BATCH_MAX) p->batch_cap++;
  }
  if (w->prog_ok && !w->prog_retry && isfinite(p->fixed_ms)) {
    double body = (w->prog_ms - p->fixed_ms) / w->prog_ok;
    if (body < 0) body = 0;
    p->body_ms = isfinite(p->body_ms) ? 0.8 * p->body_ms + 0.2 * body : body;
  }
}

/* A complete result frame sits in w->rx: decode it, cache it, queue it. */
static void take_result(cpool *p, worker *w, size_t body_len) {
  jobitem *it = w->jobs[w->nres];
  compile_result_init(&it->res);
  if (wire_decode_result(w->rx.data + 4, body_len, &it->res) != 0) {
    worker_failed(p, w, 1, "sent a malformed result", 0);
    return;
  }
  w->nres++;
  size_t rest = w->rx.len - 4 - body_len;
  memmove(w->rx.data, w->rx.data + 4 + body_len, rest);
  w->rx.len = rest;
  if (it->internal) { /* the probe: NVRTC's fixed cost */
    p->fixed_ms = it->res.ok ? it->res.compile_ms : NAN;
    p->probe = 2;
    item_free(it);
    w->jobs[w->nres - 1] = NULL;
  } else if (it->res.retry == 2) {
    /* it compiled; another member's static shared memory failed the program: batched again
     * (no loop: every such failure gives at least one member over the limit its result) */
    compile_result_free(&it->res);
    push_front(&p->todo_head, &p->todo_tail, it);
    p->st.rebatched++;
  } else if (it->res.retry) {
    w->prog_retry++;
    retry_alone(p, w, it, 1);
  } else {
    memcpy(it->res.key, it->key, 65);
    w->prog_ms += it->res.compile_ms;
    w->prog_ok += it->res.ok;
    /* A cache write that fails (full disk, read-only folder) costs a recompile next time,
     * nothing more: the result itself is good. */
    if (p->cache_dir) compile_cache_put(p->cache_dir, it->key, &it->res, NULL);
    else memo_put(p, it->key, &it->res);
    group_result(p, it);
    finish(p, it);
  }
  if (w->nres == w->njobs) program_done(p, w);
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
  while (w->njobs && w->rx.len >= 4) { /* a batch's results may arrive in one read */
    uint32_t len;
    memcpy(&len, w->rx.data, 4);
    if (len > WIRE_MAX_FRAME) {
      worker_failed(p, w, 1, "sent an oversized frame", 0);
      return;
    }
    if (w->rx.len < 4 + (size_t)len) return;
    take_result(p, w, len);
  }
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

int cpool_start(cpool *p, cterr *err) { return dispatch(p, err); }

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
      if (!w->njobs) continue;
      if (now >= w->deadline) {
        /* a result may be sitting in the pipe (we were away): take it before judging; one larger
         * than the pipe holds comes in pieces as it is read (the worker blocked writing it), so
         * wait a little for each next piece */
        struct pollfd pf = {.fd = w->pr.from, .events = POLLIN};
        while (w->njobs && poll(&pf, 1, 100) > 0 && pf.revents) read_worker(p, w);
        if (w->njobs) worker_failed(p, w, 1, NULL, 1);
      } else if (next < 0 || w->deadline < next) next = w->deadline;
    }
    if (p->ready_head) continue;
    int n = 0;
    for (int i = 0; i < p->nworkers; i++)
      if (p->w[i].njobs) fds[n] = (struct pollfd){.fd = p->w[i].pr.from, .events = POLLIN}, who[n++] = i;
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
  if (it->internal) { /* the probe of NVRTC's fixed cost: nobody waits for it */
    item_free(it);
    return;
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
    if (!w->njobs) continue;
    worker_reap(w, 1, NULL, 0); /* started again, lazily, by the next dispatch */
    busy_end(p, w);
    /* a batch's members whose results already came back were handed on; drop the rest */
    for (int j = w->nres; j < w->njobs; j++) drop_item(w->jobs[j], drop, ctx, &n);
    w->njobs = w->nres = 0;
  }
  while ((it = pop(&p->todo_head, &p->todo_tail))) drop_item(it, drop, ctx, &n);
  while ((it = pop(&p->ready_head, &p->ready_tail))) drop_item(it, drop, ctx, &n);
  p->pending = 0;
  if (p->probe == 1) p->probe = 2; /* a cancelled probe: the fixed cost stays unknown */
  return n;
}

void cpool_free(cpool *p) {
  if (!p) return;
  /* Idle workers see EOF on stdin and exit; busy ones are killed (their results are no
   * longer wanted, and waiting for a long compile would stall the caller). */
  for (int i = 0; i < p->nworkers; i++) {
    worker *w = &p->w[i];
    if (w->pr.pid > 0 && !w->njobs) close(w->pr.to), w->pr.to = -1;
  }
  for (int i = 0; i < p->nworkers; i++) {
    worker *w = &p->w[i];
    if (w->pr.pid > 0) worker_reap(w, w->njobs > 0, NULL, 0);
    for (int k = w->nres; k < w->njobs; k++) item_free(w->jobs[k]);
    dbuf_free(&w->rx);
  }
  jobitem *it;
  while ((it = pop(&p->todo_head, &p->todo_tail))) item_free(it);
  while ((it = pop(&p->ready_head, &p->ready_tail))) item_free(it);
  for (size_t i = 0; i < p->memo_cap; i++)
    if (p->memo[i].key[0]) compile_result_free(&p->memo[i].res);
  free(p->memo);
  free(p->w);
  free(p->self_exe);
  free(p->cache_dir);
  free(p);
}
