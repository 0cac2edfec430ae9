/* gpu: the coordinator's side of a GPU worker (see gpu.h; protocol in gpu_wire.h): the worker
 * process. gpu_jobs.c sets problems up on it and passes jobs through it.
 *
 * The worker is `self_exe __gpu-worker ORDINAL`, started with posix_spawn; its stdin/stdout
 * carry frames and its stderr is read too, keeping the last lines as the explanation when it
 * dies. Every wait for the worker has a wall-clock deadline (poll), so a hung kernel costs one
 * job's time limit: the worker is killed, the job is recorded as a timeout, and a fresh worker
 * is started and given the same problems (their references run again) before gpu_measure returns. */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "gpu.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_int.h"

#define START_TIMEOUT_S 120.0 /* CUDA init + the copy-bandwidth measurement */
#define SETUP_TIMEOUT_S 600.0 /* host-side random fill of GB-sized inputs + the reference */

static void errtail_add(gpu *g, const char *p, size_t n) {
  if (n >= ERRTAIL) {
    p += n - (ERRTAIL - 1);
    n = ERRTAIL - 1;
  }
  if (g->errlen + n >= ERRTAIL) {
    size_t drop = g->errlen + n - (ERRTAIL - 1);
    memmove(g->errtail, g->errtail + drop, g->errlen - drop);
    g->errlen -= drop;
  }
  memcpy(g->errtail + g->errlen, p, n);
  g->errlen += n;
  g->errtail[g->errlen] = 0;
}

/* The last non-empty line the worker wrote to stderr, or "". */
static const char *errtail_last(gpu *g) {
  static char line[512];
  size_t end = g->errlen;
  while (end > 0 && (g->errtail[end - 1] == '\n' || g->errtail[end - 1] == '\r')) end--;
  size_t start = end;
  while (start > 0 && g->errtail[start - 1] != '\n') start--;
  snprintf(line, sizeof line, "%.*s", (int)(end - start), g->errtail + start);
  return line;
}

void gpu_reap(gpu *g, int kill_first, char *how, size_t howlen) { proc_reap(&g->pr, kill_first, 3.0, how, howlen); }

static int worker_spawn(gpu *g, const char *mode, int no_copy_bw, cterr *err) {
  signal(SIGPIPE, SIG_IGN); /* a dead worker is a write error, not the end of cutune */
  char *argv[] = {g->self_exe, "__gpu-worker", (char *)mode, no_copy_bw ? "--no-copy-bw" : NULL, NULL};
  int rc = proc_spawn(&g->pr, g->self_exe, argv, 1);
  if (rc) return cterr_set(err, "starting the GPU worker '%s': %s", g->self_exe, strerror(rc));
  /* room in the pipe for a queued job beside the one being measured, so that queueing it
   * never blocks the coordinator (Linux: up to /proc/sys/fs/pipe-max-size, 1 MiB by default) */
  int cap = fcntl(g->pr.to, F_SETPIPE_SZ, 1 << 20);
  g->pipe_cap = cap > 0 ? cap : fcntl(g->pr.to, F_GETPIPE_SZ);
  g->errlen = 0;
  g->errtail[0] = 0;
  g->start_deadline = now_seconds() + START_TIMEOUT_S;
  return 0;
}

/* Read exactly n bytes from the worker before the deadline, collecting its stderr meanwhile.
 * 0, -1 (EOF or error), -2 (deadline passed). */
static int recv_bytes(gpu *g, void *p, size_t n, double deadline) {
  char *c = p;
  while (n) {
    double left = deadline - now_seconds();
    if (left <= 0) return -2;
    struct pollfd pf[2] = {{g->pr.from, POLLIN, 0}, {g->pr.err, POLLIN, 0}};
    int np = g->pr.err >= 0 ? 2 : 1;
    int r = poll(pf, (nfds_t)np, (int)(left * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (np == 2 && (pf[1].revents & (POLLIN | POLLHUP))) {
      char buf[1024];
      ssize_t k = read(g->pr.err, buf, sizeof buf);
      if (k > 0) errtail_add(g, buf, (size_t)k);
      else if (k == 0) {
        close(g->pr.err);
        g->pr.err = -1;
      }
    }
    if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t k = read(g->pr.from, c, n);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return -1;
      c += k;
      n -= (size_t)k;
    }
  }
  return 0;
}

int gpu_recv_frame(gpu *g, uint32_t *type, dbuf *payload, double deadline, cterr *err) {
  unsigned char hdr[16];
  uint64_t len;
  int r = recv_bytes(g, hdr, sizeof hdr, deadline);
  if (r) return r;
  if (wire_check_header(hdr, type, &len, err)) return -3;
  dbuf_reset(payload);
  char buf[65536];
  while (len) {
    size_t k = len < sizeof buf ? (size_t)len : sizeof buf;
    if ((r = recv_bytes(g, buf, k, deadline))) return r;
    dbuf_append(payload, buf, k);
    len -= k;
  }
  return 0;
}

void gpu_describe_death(gpu *g, int kill_first, char *out, size_t n) {
  char how[128];
  gpu_reap(g, kill_first, how, sizeof how);
  const char *last = errtail_last(g);
  snprintf(out, n, "GPU worker %s%s%s", how[0] ? how : "ended", last[0] ? "; its last message: " : "", last);
}

/* A start frame of a spawned worker (want: MSG_IDENT, then MSG_HELLO) of size bytes into p, or
 * err saying why it did not come (the worker reaped). Before IDENT the worker's own ERROR is
 * passed on as it is, its code too (no driver, no such device: gpu_error_is_no_device); after
 * it, and for a death or a frame of another type or size, the message names the device, with
 * its name once IDENT has given it, and no code: the device was there. */
static int worker_start_frame(gpu *g, uint32_t want, size_t size, const char *name, dbuf *p, cterr *err) {
  uint32_t type;
  int r = gpu_recv_frame(g, &type, p, g->start_deadline, err);
  if (r == 0 && type == want && p->len == size) return 0;
  const char *what = want == MSG_IDENT ? "IDENT" : "HELLO";
  char dev[200], why[1024];
  if (name && name[0]) snprintf(dev, sizeof dev, "device %d (%.150s)", g->ordinal, name);
  else snprintf(dev, sizeof dev, "device %d", g->ordinal);
  if (r == 0 && type == MSG_ERROR) {
    int code;
    const char *text = wire_error_text(p, &code);
    gpu_reap(g, 1, NULL, 0);
    if (want == MSG_IDENT) return cterr_set_code(err, code, "%s", text);
    return cterr_set(err, "GPU worker for %s did not start: %s", dev, text);
  }
  if (r == -2) gpu_describe_death(g, 1, why, sizeof why);
  else if (r == -1) gpu_describe_death(g, 0, why, sizeof why);
  else {
    if (r == -3) snprintf(why, sizeof why, "%.900s", err->msg);
    else if (type == want) snprintf(why, sizeof why, "GPU worker protocol: a %s of %zu bytes", what, p->len);
    else snprintf(why, sizeof why, "GPU worker protocol: frame type %u where %s was due", type, what);
    gpu_reap(g, 1, NULL, 0);
  }
  return cterr_set(err, "GPU worker for %s did not start%s: %s", dev, r == -2 ? " within its time limit" : "", why);
}

/* The IDENT of a spawned worker: its device's identity into info (copy_gbps NAN). */
static int worker_ident(gpu *g, gpu_device_info *info, cterr *err) {
  dbuf p;
  dbuf_init(&p);
  wire_ident id;
  int rc = worker_start_frame(g, MSG_IDENT, sizeof id, NULL, &p, err);
  if (rc == 0) {
    memcpy(&id, p.data, sizeof id);
    if (id.ordinal != g->ordinal) {
      gpu_reap(g, 1, NULL, 0);
      rc = cterr_set(err, "GPU worker for device %d did not start: GPU worker protocol: an IDENT for device %d",
                     g->ordinal, (int)id.ordinal);
    } else {
      *info = id.info;
      info->copy_gbps = NAN;
    }
  }
  dbuf_free(&p);
  return rc;
}

/* The HELLO of a worker whose IDENT was read: the whole device info into info. name: the
 * device's, from IDENT, for the error (it may be info->name: info is written only on success). */
static int worker_hello(gpu *g, const char *name, gpu_device_info *info, cterr *err) {
  dbuf p;
  dbuf_init(&p);
  int rc = worker_start_frame(g, MSG_HELLO, sizeof *info, name, &p, err);
  if (rc == 0) memcpy(info, p.data, sizeof *info);
  dbuf_free(&p);
  return rc;
}

/* Start a worker and wait for its IDENT and HELLO (a restart: the first worker's info stands). */
static int worker_start(gpu *g, int no_copy_bw, gpu_device_info *info, cterr *err) {
  char mode[16];
  snprintf(mode, sizeof mode, "%d", g->ordinal);
  if (worker_spawn(g, mode, no_copy_bw, err) || worker_ident(g, info, err)) return -1;
  return worker_hello(g, info->name, info, err);
}

int gpu_send_setup(gpu *g, int slot, cterr *err, int *died) {
  int dummy;
  gpu_slot *ps = &g->ps[slot];
  if (!died) died = &dummy;
  *died = 0;
  /* a replacement worker for the same problem: the figures of the first setup stand */
  int32_t known = isfinite(ps->copy_gbps) || isfinite(ps->sgemm_ms);
  memcpy(ps->setup.data + offsetof(wire_setup, baselines_known), &known, sizeof known);
  if (wire_write(g->pr.to, MSG_SETUP, ps->setup.data, ps->setup.len, NULL, 0, NULL, 0, err)) {
    char why[1024];
    gpu_describe_death(g, 0, why, sizeof why);
    *died = 1;
    return cterr_set(err, "problem setup: %s", why);
  }
  uint32_t type;
  dbuf p;
  dbuf_init(&p);
  int r = gpu_recv_frame(g, &type, &p, now_seconds() + SETUP_TIMEOUT_S, err), rc = -1;
  if (r == 0 && type == MSG_SETUP_OK) {
    rc = 0;
    wire_setup_ok ok = {NAN, NAN, ""};
    if (p.len == sizeof ok) memcpy(&ok, p.data, sizeof ok);
    ok.sgemm_why[sizeof ok.sgemm_why - 1] = 0;
    /* kept from the first setup of this problem: a restart's re-measure is not needed */
    if (!isfinite(ps->copy_gbps)) ps->copy_gbps = ok.copy_gbps;
    if (!isfinite(ps->sgemm_ms)) {
      ps->sgemm_ms = ok.sgemm_ms;
      snprintf(ps->sgemm_why, sizeof ps->sgemm_why, "%s", ok.sgemm_why);
    }
  } else if (r == 0 && type == MSG_ERROR) {
    cterr_set(err, "problem setup: %s", wire_error_text(&p, NULL));
  } else {
    char why[1024];
    if (r == -3) snprintf(why, sizeof why, "%.900s", err->msg);
    else gpu_describe_death(g, r == -2, why, sizeof why);
    *died = r == -1;
    cterr_set(err, "problem setup: %s%s", r == -2 ? "no answer within the time limit; " : "", why);
  }
  dbuf_free(&p);
  return rc;
}

int gpu_restart(gpu *g, cterr *err) {
  for (int attempt = 1;; attempt++) {
    if (g->pr.pid > 0) gpu_reap(g, 1, NULL, 0);
    gpu_device_info info;
    if (worker_start(g, 1, &info, err)) return cterr_wrap(err, "restarting the GPU worker");
    int died = 0, k = 0;
    while (k < GPU_PROBLEMS && (!g->ps[k].have || gpu_send_setup(g, k, err, &died) == 0)) k++;
    if (k == GPU_PROBLEMS) return 0;
    gpu_reap(g, 1, NULL, 0);
    if (!died || attempt >= SETUP_ATTEMPTS)
      return cterr_wrap(err, "restarting the GPU worker%s", died ? " (every attempt died in the setup)" : "");
  }
}

int gpu_count(const char *self_exe, cterr *err) {
  gpu g = {.self_exe = (char *)self_exe};
  proc_init(&g.pr);
  if (!self_exe) {
    cterr_set_code(err, CTERR_NO_DEVICE, "no CUDA device: cannot locate the cutune executable to start a GPU worker");
    return 0;
  }
  if (worker_spawn(&g, "--count", 0, err)) return 0;
  uint32_t type;
  dbuf p;
  dbuf_init(&p);
  int n = 0, r = gpu_recv_frame(&g, &type, &p, now_seconds() + START_TIMEOUT_S, err);
  if (r == 0 && type == MSG_COUNT_IS && p.len == sizeof(int32_t)) {
    int32_t c;
    memcpy(&c, p.data, sizeof c);
    n = c;
    if (n == 0) cterr_set_code(err, CTERR_NO_DEVICE, "no CUDA device: the driver found none");
  } else if (r == 0 && type == MSG_ERROR) {
    int code;
    const char *text = wire_error_text(&p, &code);
    cterr_set_code(err, code, "%s", text);
  } else if (r != -3) {
    char why[1024];
    gpu_describe_death(&g, r == -2, why, sizeof why);
    cterr_set_code(err, CTERR_NO_DEVICE, "no CUDA device: counting devices failed: %s", why);
  }
  dbuf_free(&p);
  gpu_reap(&g, 0, NULL, 0);
  return n;
}

int gpu_error_is_no_device(const cterr *err) {
  /* the code the worker set (gpu_worker.c, wk_init; cuda_api.c) and its ERROR carried */
  return err && err->code == CTERR_NO_DEVICE;
}

int gpu_start(gpu **out, const char *self_exe, int ordinal, cterr *err) {
  return gpu_start_all(out, self_exe, &ordinal, 1, err);
}

int gpu_start_all(gpu **out, const char *self_exe, const int *ordinals, int n, cterr *err) {
  if (gpu_start_all_begin(out, self_exe, ordinals, n, err)) return -1;
  if (gpu_start_all_end(out, n, err) == 0) return 0;
  for (int i = 0; i < n; i++) gpu_stop(out[i]), out[i] = NULL;
  return -1;
}

int gpu_start_all_begin(gpu **out, const char *self_exe, const int *ordinals, int n, cterr *err) {
  for (int i = 0; i < n; i++) out[i] = NULL;
  if (!self_exe) return cterr_set(err, "cannot locate the cutune executable to start a GPU worker");
  int rc = 0;
  for (int i = 0; i < n && rc == 0; i++) { /* all spawned first: they initialise CUDA at once */
    gpu *g = out[i] = xcalloc(1, sizeof *g);
    g->self_exe = xstrdup(self_exe);
    g->ordinal = ordinals[i];
    g->info.copy_gbps = NAN;
    proc_init(&g->pr);
    for (int k = 0; k < GPU_PROBLEMS; k++) dbuf_init(&g->ps[k].setup);
    char mode[16];
    snprintf(mode, sizeof mode, "%d", g->ordinal);
    rc = worker_spawn(g, mode, 0, err);
  }
  trace_mark("GPU workers spawned (%d)", n);
  for (int i = 0; i < n && rc == 0; i++) rc = worker_ident(out[i], &out[i]->info, err);
  if (rc != 0) {
    for (int i = 0; i < n; i++) gpu_stop(out[i]), out[i] = NULL;
    return -1;
  }
  if (n > 0) trace_mark("GPU workers identified (%d; the first: %s, %s)", n, out[0]->info.name, out[0]->info.arch);
  return 0;
}

int gpu_start_all_end(gpu *const *gs, int n, cterr *err) {
  for (int i = 0; i < n; i++) {
    gpu *g = gs[i];
    if (g->up) continue;
    if (worker_hello(g, g->info.name, &g->info, err)) return -1;
    g->up = 1;
  }
  trace_mark("GPU workers up (%d)", n);
  return 0;
}

const gpu_device_info *gpu_info(const gpu *g) { return &g->info; }

void gpu_stop(gpu *g) {
  if (!g) return;
  if (g->pr.pid > 0 && !g->up) { /* still starting (gpu_start_all_begin): it reads no QUIT yet */
    gpu_reap(g, 1, NULL, 0);
  } else if (g->pr.pid > 0) {
    cterr e;
    wire_write(g->pr.to, MSG_QUIT, NULL, 0, NULL, 0, NULL, 0, &e);
    gpu_reap(g, 0, NULL, 0);
  }
  proc_close_pipes(&g->pr);
  for (int k = 0; k < GPU_PROBLEMS; k++) dbuf_free(&g->ps[k].setup);
  free(g->self_exe);
  free(g);
}

int gpu_wait_any(gpu *const *gs, int n, int timeout_ms) {
  double until = timeout_ms < 0 ? INFINITY : now_seconds() + timeout_ms / 1000.0;
  struct pollfd pf[2 * GPU_WAIT_MAX];
  int who[2 * GPU_WAIT_MAX];
  for (;;) {
    double now = now_seconds(), wake = until;
    int np = 0;
    for (int i = 0; i < n && i < GPU_WAIT_MAX; i++) {
      gpu *g = gs[i];
      if (!g || !g->nq) continue;
      if (g->q[0].send_failed || g->pr.from < 0 || now >= g->q[0].deadline) return i;
      if (g->q[0].deadline < wake) wake = g->q[0].deadline;
      pf[np] = (struct pollfd){g->pr.from, POLLIN, 0}, who[np++] = i;
      if (g->pr.err >= 0) pf[np] = (struct pollfd){g->pr.err, POLLIN, 0}, who[np++] = -1 - i;
    }
    if (np == 0) return -1;
    double left = wake - now;
    if (left < 0) left = 0;
    int r = poll(pf, (nfds_t)np, isinf(left) ? -1 : (int)(left * 1000) + 1);
    if (r < 0 && errno != EINTR) return -1;
    for (int k = 0; r > 0 && k < np; k++) {
      if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (who[k] >= 0) return who[k];
      gpu *g = gs[-1 - who[k]]; /* keep the worker's stderr drained, as recv_bytes does */
      char buf[1024];
      ssize_t got = read(g->pr.err, buf, sizeof buf);
      if (got > 0) errtail_add(g, buf, (size_t)got);
      else if (got == 0) {
        close(g->pr.err);
        g->pr.err = -1;
      }
    }
    if (now_seconds() >= until) return -1;
  }
}
