/* gpu: the coordinator's side of a GPU worker (see gpu.h; protocol in gpu_wire.h).
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

#include "gpu_wire.h"
#include "base/proc.h"

#define ERRTAIL 2048
#define START_TIMEOUT_S 120.0 /* CUDA init + the copy-bandwidth measurement */
#define SETUP_TIMEOUT_S 600.0 /* host-side random fill of GB-sized inputs + the reference */
#define SETUP_ATTEMPTS 3      /* workers that may die in a problem's setup before the run gives up */

/* A job sent to the worker and not yet collected. Kept whole (the cubin borrowed from the
 * caller) so that it can be sent again to a replacement worker. */
typedef struct gpu_pend {
  wire_job wj;
  char kernel[GPU_NAME_MAX];
  const void *cubin;
  double deadline; /* 0: it waits behind the one before it (its clock starts when that ends) */
  int slot;        /* the problem it runs on */
  launch_geom geom;
  int send_failed, unsent;
  char why[1024];
} gpu_pend;

/* A problem the worker holds: its setup frame (replayed to a replacement worker) and the
 * figures its first setup measured. */
typedef struct gpu_slot {
  dbuf setup;
  int have;            /* set up (the frame is the last successful one) */
  double copy_gbps;    /* the worker's copy of the problem's bytes; NAN: use info.copy_gbps */
  double sgemm_ms;     /* the problem's cuBLAS SGEMM baseline; NAN: none */
  char sgemm_why[200]; /* why it is missing, when it was asked for */
} gpu_slot;

struct gpu {
  char *self_exe;
  int ordinal;
  proc pr; /* the worker and its stdin/stdout/stderr pipes */
  char errtail[ERRTAIL];
  size_t errlen;
  gpu_device_info info;
  gpu_slot ps[GPU_PROBLEMS]; /* the problems the worker holds (gpu_setup_at) */
  int setup_deaths;          /* workers that died in the last gpu_setup before one succeeded */
  /* the jobs sent by gpu_submit and not yet collected, oldest first (gpu.h: GPU_DEPTH) */
  gpu_pend q[GPU_DEPTH];
  int nq;
  int pipe_cap; /* bytes the pipe to the worker holds (a queued job must fit beside the first) */
  int up;       /* the first worker's HELLO was read (gpu_start_all_end): it takes commands */
  double start_deadline; /* the worker's whole start (IDENT and HELLO) is due by then */
};

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

/* Reap the worker (killing it first when kill_first, or when it does not exit within 3 s);
 * describes how it ended in `how`. */
static void worker_reap(gpu *g, int kill_first, char *how, size_t howlen) {
  proc_reap(&g->pr, kill_first, 3.0, how, howlen);
}

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

static int recv_frame(gpu *g, uint32_t *type, dbuf *payload, double deadline, cterr *err) {
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

/* "GPU worker killed by signal 11 (Segmentation fault); its last message: ..." */
static void describe_death(gpu *g, int kill_first, char *out, size_t n) {
  char how[128];
  worker_reap(g, kill_first, how, sizeof how);
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
  int r = recv_frame(g, &type, p, g->start_deadline, err);
  if (r == 0 && type == want && p->len == size) return 0;
  const char *what = want == MSG_IDENT ? "IDENT" : "HELLO";
  char dev[200], why[1024];
  if (name && name[0]) snprintf(dev, sizeof dev, "device %d (%.150s)", g->ordinal, name);
  else snprintf(dev, sizeof dev, "device %d", g->ordinal);
  if (r == 0 && type == MSG_ERROR) {
    int code;
    const char *text = wire_error_text(p, &code);
    worker_reap(g, 1, NULL, 0);
    if (want == MSG_IDENT) return cterr_set_code(err, code, "%s", text);
    return cterr_set(err, "GPU worker for %s did not start: %s", dev, text);
  }
  if (r == -2) describe_death(g, 1, why, sizeof why);
  else if (r == -1) describe_death(g, 0, why, sizeof why);
  else {
    if (r == -3) snprintf(why, sizeof why, "%.900s", err->msg);
    else if (type == want) snprintf(why, sizeof why, "GPU worker protocol: a %s of %zu bytes", what, p->len);
    else snprintf(why, sizeof why, "GPU worker protocol: frame type %u where %s was due", type, what);
    worker_reap(g, 1, NULL, 0);
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
      worker_reap(g, 1, NULL, 0);
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

/* Send the remembered setup and wait for its answer. *died (may be NULL) says whether the
 * worker died on it (killed from outside, say), as opposed to answering with an error or
 * overrunning: only a death is worth another worker. */
static int send_setup(gpu *g, int slot, cterr *err, int *died) {
  int dummy;
  gpu_slot *ps = &g->ps[slot];
  if (!died) died = &dummy;
  *died = 0;
  /* a replacement worker for the same problem: the figures of the first setup stand */
  int32_t known = isfinite(ps->copy_gbps) || isfinite(ps->sgemm_ms);
  memcpy(ps->setup.data + offsetof(wire_setup, baselines_known), &known, sizeof known);
  if (wire_write(g->pr.to, MSG_SETUP, ps->setup.data, ps->setup.len, NULL, 0, NULL, 0, err)) {
    char why[1024];
    describe_death(g, 0, why, sizeof why);
    *died = 1;
    return cterr_set(err, "problem setup: %s", why);
  }
  uint32_t type;
  dbuf p;
  dbuf_init(&p);
  int r = recv_frame(g, &type, &p, now_seconds() + SETUP_TIMEOUT_S, err), rc = -1;
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
    else describe_death(g, r == -2, why, sizeof why);
    *died = r == -1;
    cterr_set(err, "problem setup: %s%s", r == -2 ? "no answer within the time limit; " : "", why);
  }
  dbuf_free(&p);
  return rc;
}

/* A fresh worker with the problems set up, after a fault or a timeout. A worker that dies
 * in the setup is replaced, SETUP_ATTEMPTS times at most. */
static int worker_restart(gpu *g, cterr *err) {
  for (int attempt = 1;; attempt++) {
    if (g->pr.pid > 0) worker_reap(g, 1, NULL, 0);
    gpu_device_info info;
    if (worker_start(g, 1, &info, err)) return cterr_wrap(err, "restarting the GPU worker");
    int died = 0, k = 0;
    while (k < GPU_PROBLEMS && (!g->ps[k].have || send_setup(g, k, err, &died) == 0)) k++;
    if (k == GPU_PROBLEMS) return 0;
    worker_reap(g, 1, NULL, 0);
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
  int n = 0, r = recv_frame(&g, &type, &p, now_seconds() + START_TIMEOUT_S, err);
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
    describe_death(&g, r == -2, why, sizeof why);
    cterr_set_code(err, CTERR_NO_DEVICE, "no CUDA device: counting devices failed: %s", why);
  }
  dbuf_free(&p);
  worker_reap(&g, 0, NULL, 0);
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
    worker_reap(g, 1, NULL, 0);
  } else if (g->pr.pid > 0) {
    cterr e;
    wire_write(g->pr.to, MSG_QUIT, NULL, 0, NULL, 0, NULL, 0, &e);
    worker_reap(g, 0, NULL, 0);
  }
  proc_close_pipes(&g->pr);
  for (int k = 0; k < GPU_PROBLEMS; k++) dbuf_free(&g->ps[k].setup);
  free(g->self_exe);
  free(g);
}

int gpu_setup(gpu *g, const gpu_problem *p, cterr *err) { return gpu_setup_at(g, 0, p, err); }

int gpu_setup_at(gpu *g, int slot, const gpu_problem *p, cterr *err) {
  if (!g->up) return cterr_set(err, "gpu_setup: the GPU worker's start is not finished (gpu_start_all_end)");
  if (g->nq) return cterr_set(err, "gpu_setup: %d jobs not collected", g->nq);
  if (slot < 0 || slot >= GPU_PROBLEMS)
    return cterr_set(err, "gpu_setup: problem slot %d (0 to %d)", slot, GPU_PROBLEMS - 1);
  if (p->nargs < 0 || p->nargs > MAX_ARGS)
    return cterr_set(err, "gpu_setup: %d arguments (at most %d)", p->nargs, MAX_ARGS);
  if (!p->unchecked && !p->ref_per_config && (!p->ref_cubin || !p->ref_kernel))
    return cterr_set(err, "gpu_setup: the reference cubin and kernel name are required");
  if (p->nsyms < 0 || p->nsyms > MAX_SYMBOLS)
    return cterr_set(err, "gpu_setup: %d symbols (at most %d)", p->nsyms, MAX_SYMBOLS);
  for (int k = 0; k < GPU_PROBLEMS; k++) {
    if (k != slot && slot != 0) continue; /* slot 0: a new set, the others dropped */
    g->ps[k].have = 0;
    g->ps[k].copy_gbps = NAN; /* measured by the worker for this problem */
    g->ps[k].sgemm_ms = NAN;
    g->ps[k].sgemm_why[0] = 0;
  }
  gpu_slot *ps = &g->ps[slot];
  wire_setup s;
  memset(&s, 0, sizeof s);
  s.slot = slot;
  s.nargs = p->nargs;
  memcpy(s.args, p->args, sizeof(argspec) * (size_t)p->nargs);
  s.seed = p->seed;
  s.tolerance = p->tolerance;
  s.ref_geom = p->ref_geom;
  s.bytes = p->bytes;
  s.flops = p->flops;
  memcpy(s.sgemm, p->sgemm, sizeof s.sgemm);
  s.gemm_type = p->gemm_type;
  s.nsyms = p->nsyms;
  memcpy(s.syms, p->syms, sizeof(symspec) * (size_t)p->nsyms);
  s.unchecked = p->unchecked;
  s.ref_per_config = p->ref_per_config;
  s.ref_nargs = p->ref_nargs;
  memcpy(s.ref_arg, p->ref_arg, sizeof s.ref_arg);
  int own_ref = p->ref_cubin && p->ref_kernel;
  s.kernel_len = own_ref ? (uint32_t)strlen(p->ref_kernel) : 0;
  s.cubin_len = own_ref ? p->ref_cubin_len : 0;
  int own_check = p->check_cubin && p->check_kernel;
  s.check_kernel_len = own_check ? (uint32_t)strlen(p->check_kernel) : 0;
  s.check_cubin_len = own_check ? p->check_cubin_len : 0;
  if (p->ninit < 0 || p->ninit > MAX_LAUNCHES || (p->ninit && !p->init_cubin))
    return cterr_set(err, "gpu_setup: %d init launches (at most %d, with their cubin)", p->ninit, MAX_LAUNCHES);
  s.ninit = p->ninit;
  memcpy(s.init, p->init, sizeof(launch_step) * (size_t)p->ninit);
  s.init_cubin_len = p->ninit ? p->init_cubin_len : 0;
  dbuf_reset(&ps->setup);
  dbuf_append(&ps->setup, &s, sizeof s);
  if (own_ref) dbuf_append(&ps->setup, p->ref_kernel, s.kernel_len);
  if (own_ref) dbuf_append(&ps->setup, p->ref_cubin, p->ref_cubin_len);
  if (s.check_cubin_len) dbuf_append(&ps->setup, p->check_kernel, s.check_kernel_len);
  if (s.check_cubin_len) dbuf_append(&ps->setup, p->check_cubin, p->check_cubin_len);
  if (s.init_cubin_len) dbuf_append(&ps->setup, p->init_cubin, p->init_cubin_len);
  for (int k = 0; k < p->nsyms; k++)
    if (p->syms[k].src == SYMSRC_DATA) dbuf_append(&ps->setup, p->symdata[k], p->syms[k].data_len);
  for (int i = 0; i < p->nargs; i++) { /* buffers filled from the space's data, after the symbols' */
    const argspec *a = &p->args[i];
    if (a->kind == ARG_SCALAR || a->kind == ARG_TENSORMAP || a->fill != FILL_DATA) continue;
    size_t bytes = (size_t)a->count * (size_t)elemtype_size(a->type);
    if (!p->argdata[i] || ps->setup.len + bytes > WIRE_MAX_PAYLOAD) {
      dbuf_free(&ps->setup);
      return cterr_set(err, "gpu_setup: argument '%s': %s", a->name,
                       p->argdata[i] ? "the problem's data passes the 2 GiB a setup carries" : "no data");
    }
    dbuf_append(&ps->setup, p->argdata[i], bytes);
  }
  g->setup_deaths = 0;
  /* A worker that dies in the setup (killed from outside, say) is replaced and the setup sent
   * again, SETUP_ATTEMPTS times at most; an error it reports, or a setup past its time
   * limit, is not retried (it would fail the same way). */
  for (int attempt = 1;; attempt++) {
    if (g->pr.pid <= 0 && worker_restart(g, err)) return -1;
    int died = 0;
    if (send_setup(g, slot, err, &died) == 0) {
      ps->have = 1;
      return 0;
    }
    /* The worker may be dying (the reference faulted): start clean, with the other problems of
     * the set (not this one); a failed restart is tried again by the next call. */
    cterr ignored;
    worker_restart(g, &ignored);
    if (!died) return -1;
    if (attempt >= SETUP_ATTEMPTS)
      return cterr_wrap(err, "%d GPU workers died in this problem's setup", SETUP_ATTEMPTS);
    g->setup_deaths++;
  }
}

int gpu_setup_deaths(const gpu *g) { return g ? g->setup_deaths : 0; }

int gpu_setup_all(gpu *const *gs, int n, int slot, const gpu_problem *p, cterr *err) {
  for (int i = 0; i < n; i++)
    if (gpu_setup_at(gs[i], slot, p, err) != 0) return n > 1 ? cterr_wrap(err, "device %d", gs[i]->ordinal) : -1;
  return 0;
}

double gpu_copy_gbps(const gpu *g, int slot) {
  double c = slot >= 0 && slot < GPU_PROBLEMS ? g->ps[slot].copy_gbps : NAN;
  return isfinite(c) && c > 0 ? c : g->info.copy_gbps;
}

double gpu_sgemm_ms(const gpu *g, int slot, const char **why) {
  if (slot < 0 || slot >= GPU_PROBLEMS) slot = 0;
  if (why) *why = g->ps[slot].sgemm_why;
  return g->ps[slot].sgemm_ms;
}

static void fill_record(const gpu *g, int slot, const wire_result *w, record *rec) {
  rec->status = (rec_status)w->status;
  record_set_str(&rec->message, w->message);
  rec->t_median = w->t_median;
  rec->t_min = w->t_min;
  rec->t_mean = w->t_mean;
  rec->t_std = w->t_std;
  rec->t_isolated = w->t_isolated;
  rec->t_iso_floor = w->t_iso_floor;
  rec->measure_ms = w->measure_ms;
  rec->m_load_ms = w->load_ms, rec->m_check_ms = w->check_ms;
  rec->m_timing_ms = w->timing_ms, rec->m_isolated_ms = w->isolated_ms;
  rec->t_raced = w->t_raced;
  record_set_str(&rec->race_ref, !isfinite(w->t_raced)           ? NULL
                                 : w->race_ref == WIRE_RACE_BEST ? RECORD_RACE_BEST
                                                                 : RECORD_RACE_KTH);
  rec->samples = w->samples;
  rec->gbps = w->gbps;
  /* against the problem's own copy figure, else the first worker's large copy (restarted
   * workers do not measure it again) */
  double copy = gpu_copy_gbps(g, slot);
  double sgemm = g->ps[slot].sgemm_ms;
  rec->copy_share = isfinite(w->gbps) && copy > 0 ? w->gbps / copy : w->copy_share;
  rec->gflops = w->gflops;
  rec->cublas_share = isfinite(sgemm) && w->t_median > 0 ? sgemm / w->t_median : NAN;
  rec->energy_mj = w->energy_mj;
  /* the driver's figures win where it gave them; the compiler's stay otherwise */
  if (w->regs >= 0) rec->regs = w->regs;
  if (w->smem_static >= 0) rec->smem_static = w->smem_static;
  if (w->smem_dynamic >= 0) rec->smem_dynamic = w->smem_dynamic;
  if (w->local_bytes >= 0) rec->local_bytes = w->local_bytes;
  if (w->block_threads >= 0) rec->block_threads = w->block_threads;
  if (isfinite(w->occupancy)) rec->occupancy = w->occupancy;
  rec->sm_clock_mhz = w->sm_clock_mhz;
  rec->mem_clock_mhz = w->mem_clock_mhz;
  rec->throttle_reasons = w->throttle_reasons;
  rec->temperature_c = w->temperature_c;
}

static size_t pend_bytes(const gpu_pend *q) { return 16 + sizeof q->wj + q->wj.kernel_len + q->wj.cubin_len; }

/* Send queued job k to the worker; a worker found dead marks it (send_failed for the job it
 * would run now, unsent for one queued behind: the death is the running job's, and a
 * replacement worker gets it again). */
static void send_pend(gpu *g, int k) {
  gpu_pend *q = &g->q[k];
  cterr e;
  q->send_failed = q->unsent = 0;
  q->why[0] = 0;
  if (wire_write(g->pr.to, MSG_MEASURE, &q->wj, sizeof q->wj, q->kernel, q->wj.kernel_len, q->cubin, q->wj.cubin_len,
                 &e)) {
    if (k == 0) {
      describe_death(g, 0, q->why, sizeof q->why);
      q->send_failed = 1;
    } else {
      q->unsent = 1;
    }
  }
}

int gpu_can_queue(const gpu *g, const gpu_job *job) {
  if (g->nq == 0) return 1;
  if (g->nq >= GPU_DEPTH) return 0;
  size_t mine = 16 + sizeof(wire_job) + (job->kernel ? strlen(job->kernel) : 0) + job->cubin_len, ahead = 0;
  for (int k = 0; k < g->nq; k++) ahead += pend_bytes(&g->q[k]);
  return g->pipe_cap > 0 && ahead + mine <= (size_t)g->pipe_cap;
}

int gpu_submit(gpu *g, const gpu_job *job, cterr *err) {
  if (!g->up) return cterr_set(err, "gpu_submit: the GPU worker's start is not finished (gpu_start_all_end)");
  if (job->slot < 0 || job->slot >= GPU_PROBLEMS || !g->ps[job->slot].have)
    return cterr_set(err, "gpu_submit: no problem set up in slot %d (gpu_setup first)", job->slot);
  if (!gpu_can_queue(g, job)) return cterr_set(err, "gpu_submit: %d jobs in flight and no room for another", g->nq);
  if (g->nq == 0 && g->pr.pid <= 0 && worker_restart(g, err)) return -1;
  if (job->nargvals < 0 || job->nargvals > MAX_ARGVALS)
    return cterr_set(err, "gpu_submit: %d argument values (at most %d)", job->nargvals, MAX_ARGVALS);
  if (job->ntmaps < 0 || job->ntmaps > MAX_TMAPS)
    return cterr_set(err, "gpu_submit: %d tensor maps (at most %d)", job->ntmaps, MAX_TMAPS);
  if (job->kernel && strlen(job->kernel) >= sizeof g->q[0].kernel)
    return cterr_set(err, "gpu_submit: kernel name of %zu characters", strlen(job->kernel));
  gpu_pend *q = &g->q[g->nq];
  memset(q, 0, sizeof *q);
  wire_job *wj = &q->wj;
  wj->slot = q->slot = job->slot;
  wj->geom = job->geom;
  wj->timeout_s = job->timeout_s > 0 ? job->timeout_s : 10.0;
  wj->best_ms = job->best_ms;
  wj->target_rse = job->target_rse;
  wj->min_samples = job->min_samples;
  wj->min_samples_fixed = job->min_samples_fixed;
  wj->max_samples = job->max_samples;
  wj->want_energy = job->want_energy;
  wj->isolated_samples = job->isolated_samples;
  wj->race_ms = job->race_samples > 0 ? job->race_ms : NAN;
  wj->race_margin = job->race_margin;
  wj->race_early = job->race_samples > 0 ? job->race_early : 0;
  wj->race_samples = job->race_samples;
  wj->nargvals = job->nargvals;
  for (int i = 0; i < job->nargvals; i++) wj->argvals[i] = job->argvals[i];
  if (job->ntypes < 0 || job->ntypes > MAX_ARGTYPES)
    return cterr_set(err, "gpu_submit: %d typed buffers (at most %d)", job->ntypes, MAX_ARGTYPES);
  wj->ntypes = job->ntypes;
  memcpy(wj->types, job->types, sizeof wj->types);
  wj->ntmaps = job->ntmaps;
  memcpy(wj->tmaps, job->tmaps, sizeof wj->tmaps);
  memcpy(wj->ref_kernel, job->ref_kernel, sizeof wj->ref_kernel);
  wj->ref_kernel[sizeof wj->ref_kernel - 1] = 0;
  wj->ref_geom = job->ref_geom;
  wj->ref_key = job->ref_key;
  if (job->nlaunches < 0 || job->nlaunches > MAX_LAUNCHES)
    return cterr_set(err, "gpu_submit: %d launches (at most %d)", job->nlaunches, MAX_LAUNCHES);
  wj->nlaunches = job->nlaunches;
  memcpy(wj->launches, job->launches, sizeof wj->launches);
  wj->kernel_len = job->kernel ? (uint32_t)strlen(job->kernel) : 0;
  if (job->kernel) memcpy(q->kernel, job->kernel, wj->kernel_len + 1);
  wj->cubin_len = job->cubin_len;
  q->cubin = job->cubin;
  q->geom = job->geom;
  /* The worker keeps its own timing within 60% of the limit; the margin covers module load.
   * A job queued behind another starts its clock when that one is collected. */
  q->deadline = g->nq == 0 ? now_seconds() + wj->timeout_s + 1.0 : 0;
  g->nq++;
  send_pend(g, g->nq - 1);
  return 0;
}

/* After the oldest job: the next one's clock starts; after a restart (rest == the replacement
 * worker), the jobs queued for the dead one are sent to it again. */
static void pend_shift(gpu *g, int restarted) {
  memmove(&g->q[0], &g->q[1], (size_t)(GPU_DEPTH - 1) * sizeof g->q[0]);
  g->nq--;
  for (int k = 0; k < g->nq; k++) {
    if (restarted || g->q[k].unsent) send_pend(g, k);
    if (k == 0) g->q[0].deadline = now_seconds() + g->q[0].wj.timeout_s + 1.0;
  }
}

int gpu_collect(gpu *g, record *rec, cterr *err) {
  if (!g->nq) return cterr_set(err, "gpu_collect: no job was submitted");
  gpu_pend *q = &g->q[0];
  const gpu_device_info *in = &g->info;
  record_set_str(&rec->device_name, in->name);
  record_set_str(&rec->device_cc, in->cc);
  record_set_str(&rec->device_uuid, in->uuid);
  if (!rec->arch || !*rec->arch) record_set_str(&rec->arch, in->arch); /* else what it was compiled for (sm_90a) */
  record_set_str(&rec->driver_version, in->driver);
  rec->block_threads = (int)launch_threads(&q->geom);
  rec->smem_dynamic = (int)q->geom.dyn_smem;

  int restart = 0;
  char why[1024];
  if (q->send_failed) {
    rec->status = ST_RUNTIME_FAULT;
    record_set_str(&rec->message, q->why);
    restart = 1;
  } else {
    uint32_t type;
    dbuf p;
    dbuf_init(&p);
    int r = recv_frame(g, &type, &p, q->deadline, err);
    if (r == 0 && type == MSG_RESULT && p.len == sizeof(wire_result)) {
      wire_result w;
      memcpy(&w, p.data, sizeof w);
      w.message[sizeof w.message - 1] = 0;
      fill_record(g, q->slot, &w, rec);
      restart = w.fatal;
    } else if (r == -2) {
      worker_reap(g, 1, NULL, 0);
      rec->status = ST_TIMEOUT;
      char *m =
          xasprintf("no result within the time limit of %.1f s (a hung or very slow kernel); the GPU worker was killed",
                    q->wj.timeout_s);
      record_set_str(&rec->message, m);
      free(m);
      restart = 1;
    } else {
      if (r == -1) {
        describe_death(g, 0, why, sizeof why);
      } else { /* a malformed or unexpected frame: the worker cannot be trusted any more */
        snprintf(why, sizeof why, "GPU worker protocol: %.900s", r == -3 ? err->msg : "unexpected frame");
        worker_reap(g, 1, NULL, 0);
      }
      rec->status = ST_RUNTIME_FAULT;
      record_set_str(&rec->message, why);
      restart = 1;
    }
    dbuf_free(&p);
  }
  if (restart && worker_restart(g, err)) {
    g->nq = 0; /* the device is lost: the queued jobs come back to the caller unmeasured (gpu.h) */
    return -1;
  }
  pend_shift(g, restart);
  return 0;
}

int gpu_pending(const gpu *g) { return g->nq; }

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

int gpu_measure(gpu *g, const gpu_job *job, record *rec, cterr *err) {
  if (gpu_submit(g, job, err) != 0) return -1;
  return gpu_collect(g, rec, err);
}
