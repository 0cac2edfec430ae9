/* test_compile_pool: the pool of `cutune __compile-worker` processes (CUTUNE_HOOKS_BIN): jobs
 * come back tagged and right, a second pass is served from the cache, a worker killed
 * mid-job becomes that job's error and the pool goes on, jobs of one key in flight together
 * compile once, a cancel drops every pending job at once and the pool goes on. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "compile/compile.h"

#define NJOBS 12

/* Job i: scale by i; every 4th job (i % 4 == 3) has a syntax error on line 2. */
static char *source_for(int i) {
  if (i % 4 == 3) return xasprintf("extern \"C\" __global__ void k(float *a) {\n  a[0] = oops_%d + ;\n}\n", i);
  return xasprintf("extern \"C\" __global__ void k(float *a) {\n  a[threadIdx.x] *= %d.0f;\n}\n", i);
}

static compile_job job_of(const char *src) {
  compile_job j;
  memset(&j, 0, sizeof j);
  j.src_path = "templates/pool.cu", j.src = src, j.kernel = "k", j.arch = "sm_90";
  j.nopts = 1, j.opts[0] = "-DPOOL_TEST=1";
  return j;
}

/* Submit NJOBS, collect them all; returns seconds taken, counts cached results. */
static double run_pass(cpool *p, char **srcs, int *ncached, int *nok) {
  cterr err;
  double t0 = now_seconds();
  for (int i = 0; i < NJOBS; i++) {
    compile_job j = job_of(srcs[i]);
    REQUIRE(cpool_submit(p, 1000 + (uint64_t)i, &j, &err) == 0);
  }
  CHECK(cpool_pending(p) == NJOBS);
  int seen[NJOBS] = {0};
  *ncached = *nok = 0;
  for (int got = 0; got < NJOBS; got++) {
    uint64_t tag = 0;
    compile_result r;
    int rc = cpool_wait(p, &tag, &r, 60000, &err);
    REQUIRE(rc == 1);
    REQUIRE(tag >= 1000 && tag < 1000 + NJOBS);
    int i = (int)(tag - 1000);
    CHECK(!seen[i]);
    seen[i] = 1;
    if (i % 4 == 3) {
      CHECK(!r.ok);
      CHECK_STR_CONTAINS(r.message, "templates/pool.cu(2): error");
      CHECK_STR_CONTAINS(r.message, "[compiled with -DPOOL_TEST=1 for sm_90]");
      char want[32];
      snprintf(want, sizeof want, "oops_%d", i); /* the error belongs to this job */
      CHECK_STR_CONTAINS(r.log.data, want);
    } else {
      CHECK_MSG(r.ok, "job %d: %s", i, r.message ? r.message : "");
      CHECK(r.cubin.len > 4 && !memcmp(r.cubin.data,
                                       "\x7f"
                                       "ELF",
                                       4));
      CHECK(r.res.regs > 0);
      *nok += r.ok;
    }
    compile_job j = job_of(srcs[i]);
    char key[65];
    compile_job_key(&j, key);
    CHECK(!strcmp(key, r.key));
    *ncached += r.cached;
    compile_result_free(&r);
  }
  CHECK(cpool_pending(p) == 0);
  return now_seconds() - t0;
}

/* The pipe inodes a process holds on its descriptors, except those in `skip`. */
static int pipe_inodes(long pid, long *out, int max, const long *skip, int nskip) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/fd", pid);
  DIR *d = opendir(path);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    char link[400], target[128];
    snprintf(link, sizeof link, "%s/%s", path, e->d_name);
    ssize_t len = readlink(link, target, sizeof target - 1);
    if (len <= 0) continue;
    target[len] = 0;
    long ino;
    if (sscanf(target, "pipe:[%ld]", &ino) != 1) continue;
    int dup = 0;
    for (int i = 0; i < nskip; i++) dup |= skip[i] == ino;
    for (int i = 0; i < n; i++) dup |= out[i] == ino;
    if (!dup && n < max) out[n++] = ino;
  }
  closedir(d);
  return n;
}

/* Pipes this process held before the pool existed (the test harness's own): children
 * inherit them legitimately. */
static long inherited[64];
static int ninherited;

/* Each worker must hold exactly its own two pipes (stdin, stdout) beyond those: a worker
 * holding a sibling's pipe end would keep it open after the sibling died, hiding the
 * death. */
/* The pids of this process's children (the pool's workers), from /proc. */
static int list_workers(long *pids, int max) {
  DIR *d = opendir("/proc");
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    long pid = atol(e->d_name);
    if (pid <= 0) continue;
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    long ppid = -1;
    char state = '?';
    int ok = fscanf(f, "%*d %*s %c %ld", &state, &ppid) == 2;
    fclose(f);
    if (ok && ppid == (long)getpid() && state != 'Z' && n < max) pids[n++] = pid;
  }
  closedir(d);
  return n;
}

static void check_worker_pipes(int expect_workers) {
  long pids[16];
  int n = list_workers(pids, 16);
  CHECK(n == expect_workers);
  for (int i = 0; i < n; i++) {
    long inodes[16];
    int k = pipe_inodes(pids[i], inodes, 16, inherited, ninherited);
    CHECK_MSG(k == 2, "worker %ld holds %d pipes of ours, expected 2", pids[i], k);
  }
}

struct drop_ctx {
  uint64_t *tags;
  int *n;
};
void drop_tag(void *ctx, uint64_t t);
void drop_tag(void *ctx, uint64_t t) {
  struct drop_ctx *d = ctx;
  if (*d->n < 8) d->tags[(*d->n)++] = t;
}

int main(void) {
  /* the test-only cutune-hooks: its workers obey the fault hooks below (the shipped cutune's do not) */
  const char *bin = getenv("CUTUNE_HOOKS_BIN");
  if (!bin || access(bin, X_OK) != 0)
    SKIP_TEST("CUTUNE_HOOKS_BIN is not set to the built cutune-hooks (-DCUTUNE_TEST_HOOKS=ON)");
  const char *tmp = getenv("CUTUNE_TMP");
  char *dir = xasprintf("%s/test_compile_pool.%ld", tmp && tmp[0] ? tmp : "/tmp", (long)getpid());
  /* The marker makes a worker SIGKILL itself when it meets a job holding it. */
  setenv("CUTUNE_COMPILE_WORKER_CRASH", "CRASH_ME_NOW", 1);
  setenv("CUTUNE_COMPILE_WORKER_ABORT", "ABORT_ME_NOW", 1);
  setenv("CUTUNE_COMPILE_WORKER_STOP", "STOP_ME_NOW", 1);
  signal(SIGPIPE, SIG_DFL); /* the pool must not need SIGPIPE ignored */

  ninherited = pipe_inodes((long)getpid(), inherited, 64, NULL, 0);
  char *srcs[NJOBS];
  for (int i = 0; i < NJOBS; i++) srcs[i] = source_for(i);

  cpool *p;
  cterr err;
  unsetenv("CUDA_CACHE_DISABLE");
  REQUIRE(cpool_new(&p, bin, 2, dir, &err) == 0);
  CHECK(getenv("CUDA_CACHE_DISABLE") == NULL); /* with a cache of its own, NVRTC's may work */
  uint64_t tag;
  compile_result r;
  CHECK(cpool_wait(p, &tag, &r, 10, &err) == 0); /* nothing pending: returns at once */

  int ncached, nok;
  double t1 = run_pass(p, srcs, &ncached, &nok);
  CHECK(ncached == 0);
  CHECK(nok == 9);
  check_worker_pipes(2);
  fprintf(stderr, "pass 1: %d jobs on 2 workers in %.2f s (%.1f jobs/s)\n", NJOBS, t1, NJOBS / t1);
  double t2 = run_pass(p, srcs, &ncached, &nok);
  CHECK(ncached == NJOBS);
  fprintf(stderr, "pass 2: %d jobs from the cache in %.3f s\n", NJOBS, t2);

  /* A worker dies mid-job: that job is an error naming the signal; the others, before
   * and after it, still compile. */
  const char *crash_src = "extern \"C\" __global__ void k(float *a) { a[0] = 7; } // CRASH_ME_NOW\n";
  char *after = xasprintf("extern \"C\" __global__ void k(float *a) { a[1] = %ld; }\n", (long)getpid());
  compile_job jc = job_of(crash_src), ja = job_of(after);
  REQUIRE(cpool_submit(p, 1, &jc, &err) == 0);
  REQUIRE(cpool_submit(p, 2, &ja, &err) == 0);
  int seen_crash = 0, seen_after = 0;
  for (int k = 0; k < 2; k++) {
    REQUIRE(cpool_wait(p, &tag, &r, 60000, &err) == 1);
    if (tag == 1) {
      seen_crash = 1;
      CHECK(!r.ok);
      CHECK(r.lost && !r.timed_out); /* killed from outside: not the configuration's fault */
      CHECK_STR_CONTAINS(r.message, "SIGKILL");
      CHECK_STR_CONTAINS(r.message, "a resumed run retries it");
      CHECK_STR_CONTAINS(r.message, "templates/pool.cu");
      CHECK_STR_CONTAINS(r.message, "-DPOOL_TEST=1");
    } else if (tag == 2) {
      seen_after = 1;
      CHECK_MSG(r.ok, "%s", r.message ? r.message : "");
    }
    compile_result_free(&r);
  }
  CHECK(seen_crash && seen_after);
  /* the pool keeps going, and a crash is not cached: it dies again on resubmission */
  REQUIRE(cpool_submit(p, 3, &jc, &err) == 0);
  REQUIRE(cpool_wait(p, &tag, &r, 60000, &err) == 1);
  CHECK(tag == 3 && !r.ok && !r.cached);
  compile_result_free(&r);
  REQUIRE(cpool_submit(p, 4, &ja, &err) == 0);
  REQUIRE(cpool_wait(p, &tag, &r, 60000, &err) == 1);
  CHECK(tag == 4 && r.ok && r.cached);
  compile_result_free(&r);

  /* A crash inside the compiler (abort) is the configuration's: a compile error, not lost. */
  const char *abort_src = "extern \"C\" __global__ void k(float *a) { a[0] = 8; } // ABORT_ME_NOW\n";
  compile_job jab = job_of(abort_src);
  REQUIRE(cpool_submit(p, 5, &jab, &err) == 0);
  REQUIRE(cpool_wait(p, &tag, &r, 60000, &err) == 1);
  CHECK(tag == 5 && !r.ok && !r.lost && !r.timed_out);
  CHECK_STR_CONTAINS(r.message, "SIGABRT");
  compile_result_free(&r);

  /* A compile past the deadline (here a worker stopped with SIGSTOP, which stalled a run for
   * good before compiles had one): the worker is killed, the job comes back timed out, and a
   * job beside it still compiles. */
  cpool_set_timeout(p, 1.0);
  const char *stop_src = "extern \"C\" __global__ void k(float *a) { a[0] = 9; } // STOP_ME_NOW\n";
  char *beside = xasprintf("extern \"C\" __global__ void k(float *a) { a[5] = %ld; }\n", (long)getpid());
  compile_job js = job_of(stop_src), jb = job_of(beside);
  REQUIRE(cpool_submit(p, 6, &js, &err) == 0);
  REQUIRE(cpool_submit(p, 7, &jb, &err) == 0);
  int seen_stop = 0, seen_beside = 0;
  for (int k = 0; k < 2; k++) {
    REQUIRE(cpool_wait(p, &tag, &r, 120000, &err) == 1); /* returns: the deadline fired */
    if (tag == 6) {
      seen_stop = 1;
      CHECK(!r.ok && r.timed_out && !r.lost && !r.cached);
      CHECK_STR_CONTAINS(r.message, "took longer than 1 s (--compile-timeout)");
      CHECK_STR_CONTAINS(r.message, "-DPOOL_TEST=1");
    } else if (tag == 7) {
      seen_beside = 1;
      CHECK_MSG(r.ok, "%s", r.message ? r.message : "");
    }
    compile_result_free(&r);
  }
  CHECK(seen_stop && seen_beside);
  /* a timeout is not cached: the job is compiled (and stopped) again */
  REQUIRE(cpool_submit(p, 8, &js, &err) == 0);
  REQUIRE(cpool_wait(p, &tag, &r, 120000, &err) == 1);
  CHECK(tag == 8 && r.timed_out && !r.cached);
  compile_result_free(&r);
  free(beside);
  cpool_set_timeout(p, COMPILE_TIMEOUT_S);

  /* Workers killed while idle: the next jobs find them dead when handing work over; the
   * jobs go to fresh workers, and no SIGPIPE kills this process (its disposition is the
   * default here). */
  long pids[16];
  int nw = list_workers(pids, 16);
  CHECK(nw >= 1);
  for (int i = 0; i < nw; i++) kill((pid_t)pids[i], SIGKILL);
  for (int tries = 0; tries < 200 && list_workers(pids, 16) > 0; tries++) usleep(10000); /* until zombies */
  for (int i = 0; i < 3; i++) {
    char *s = xasprintf("extern \"C\" __global__ void k(float *a) { a[3] = %d + %ld; }\n", i, (long)getpid());
    compile_job j = job_of(s);
    CHECK(cpool_submit(p, 70 + (uint64_t)i, &j, &err) == 0);
    free(s);
  }
  for (int i = 0; i < 3; i++) {
    REQUIRE(cpool_wait(p, &tag, &r, 60000, &err) == 1);
    CHECK(tag >= 70 && tag < 73);
    CHECK_MSG(r.ok && !r.cached, "%s", r.message ? r.message : "");
    compile_result_free(&r);
  }
  check_worker_pipes(2);

  /* Jobs of one key in flight together (configurations that differ only in runtime
   * parameters) compile once, without a cache too: the first is compiled, the others follow it
   * and get a copy of its result, marked shared; a crash of the first is the followers' too.
   * Freeing the pool with followers queued frees them. */
  cpool *q;
  REQUIRE(cpool_new(&q, bin, 2, NULL, &err) == 0);
  char *same = xasprintf("extern \"C\" __global__ void k(float *a) { a[4] = %ld; }\n", (long)getpid());
  compile_job jsame = job_of(same);
  for (int i = 0; i < 3; i++) REQUIRE(cpool_submit(q, 80 + (uint64_t)i, &jsame, &err) == 0);
  REQUIRE(cpool_submit(q, 90, &jc, &err) == 0);
  REQUIRE(cpool_submit(q, 91, &jc, &err) == 0);
  int ncopies = 0, nfirst = 0, nlost = 0;
  size_t cubin_len = 0;
  for (int i = 0; i < 5; i++) {
    REQUIRE(cpool_wait(q, &tag, &r, 60000, &err) == 1);
    if (tag >= 80 && tag < 83) {
      CHECK_MSG(r.ok, "%s", r.message ? r.message : "");
      CHECK(!r.cached); /* no cache here */
      if (r.shared) ncopies++;
      else nfirst++;
      if (cubin_len) CHECK(r.cubin.len == cubin_len);
      cubin_len = r.cubin.len;
      char key[65];
      compile_job_key(&jsame, key);
      CHECK(!strcmp(key, r.key));
    } else {
      CHECK(tag == 90 || tag == 91);
      CHECK(!r.ok && r.lost);
      CHECK_STR_CONTAINS(r.message, "SIGKILL");
      nlost++;
    }
    compile_result_free(&r);
  }
  CHECK(nfirst == 1 && ncopies == 2 && nlost == 2);
  CHECK(cubin_len > 4);
  for (int i = 0; i < 3; i++) REQUIRE(cpool_submit(q, 95 + (uint64_t)i, &ja, &err) == 0);
  cpool_free(q); /* a leader with two followers queued: all freed (the sanitizer build checks) */
  free(same);

  /* cancel (a run out of time): every job still queued, compiling, or following another, is
   * dropped at once and reported by its tag; the workers that were busy are killed and reaped,
   * and the pool compiles the next job with fresh ones */
  {
    cpool *c;
    REQUIRE(cpool_new(&c, bin, 2, NULL, &err) == 0);
    uint64_t dropped[8];
    int nd = 0;
    for (int i = 0; i < 5; i++) {
      char *s = xasprintf("extern \"C\" __global__ void k(float *a) { a[3] = %d + %ld; }\n", i, (long)getpid());
      compile_job j = job_of(s);
      REQUIRE(cpool_submit(c, 200 + (uint64_t)i, &j, &err) == 0);
      if (i == 4) REQUIRE(cpool_submit(c, 205, &j, &err) == 0); /* a follower of job 204 */
      free(s);
    }
    CHECK(cpool_wait(c, &tag, &r, 0, &err) == 0); /* hands two jobs to the workers; none done yet */
    compile_result_free(&r);
    CHECK(list_workers((long[16]){0}, 16) >= 2);
    struct drop_ctx dc = {dropped, &nd};
    CHECK(cpool_cancel(c, drop_tag, &dc) == 6);
    CHECK(nd == 6);
    uint64_t sum = 0;
    for (int i = 0; i < nd; i++) sum += dropped[i];
    CHECK(sum == 200 + 201 + 202 + 203 + 204 + 205);
    CHECK(cpool_pending(c) == 0);
    CHECK(cpool_wait(c, &tag, &r, 0, &err) == 0); /* nothing left to come back */
    compile_result_free(&r);
    REQUIRE(cpool_submit(c, 210, &ja, &err) == 0);
    REQUIRE(cpool_wait(c, &tag, &r, 60000, &err) == 1);
    CHECK(tag == 210);
    CHECK_MSG(r.ok, "%s", r.message ? r.message : "");
    compile_result_free(&r);
    CHECK(cpool_cancel(c, NULL, NULL) == 0);
    cpool_free(c);
  }

  /* freeing with jobs still queued or running kills and reaps everything */
  for (int i = 0; i < 4; i++) {
    char *s = xasprintf("extern \"C\" __global__ void k(float *a) { a[2] = %d + %ld; }\n", i, (long)getpid());
    compile_job j = job_of(s);
    CHECK(cpool_submit(p, 50 + (uint64_t)i, &j, &err) == 0);
    free(s); /* the pool copied it */
  }
  CHECK(cpool_wait(p, &tag, &r, 0, &err) >= 0);
  compile_result_free(&r);
  cpool_free(p);
  CHECK(waitpid(-1, NULL, WNOHANG) == -1); /* no child left behind, none unreaped */

  /* a pool whose binary does not exist reports it instead of hanging */
  REQUIRE(cpool_new(&p, "/nonexistent/cutune", 2, NULL, &err) == 0);
  /* no cache: NVRTC's own (the driver's compute cache) is turned off in the workers, and this
   * process's environment is left as it was */
  CHECK(getenv("CUDA_CACHE_DISABLE") == NULL);
  compile_job j0 = job_of(srcs[0]);
  REQUIRE(cpool_submit(p, 9, &j0, &err) == 0);
  err.msg[0] = 0;
  CHECK(cpool_wait(p, &tag, &r, 5000, &err) == -1);
  CHECK_STR_CONTAINS(err.msg, "/nonexistent/cutune");
  compile_result_free(&r);
  cpool_free(p);

  for (int i = 0; i < NJOBS; i++) free(srcs[i]);
  free(after);
  char *cmd = xasprintf("rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  free(cmd);
  free(dir);
  return check_report();
}
