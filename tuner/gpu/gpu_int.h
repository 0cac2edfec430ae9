/* gpu_int: the coordinator's handle of one GPU worker, shared by gpu.c (the worker process:
 * spawning it, reading its frames, its death, its restart with the problems set up again) and
 * gpu_jobs.c (problems set up, jobs submitted and collected). Private to them. */
#ifndef CUTUNE_GPU_INT_H
#define CUTUNE_GPU_INT_H

#include "gpu.h"
#include "gpu_wire.h"
#include "base/proc.h"

#define ERRTAIL 2048
#define SETUP_ATTEMPTS 3 /* workers that may die in a problem's setup before the run gives up */

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
  int pipe_cap;          /* bytes the pipe to the worker holds (a queued job must fit beside the first) */
  int up;                /* the first worker's HELLO was read (gpu_start_all_end): it takes commands */
  double start_deadline; /* the worker's whole start (IDENT and HELLO) is due by then */
};

/* gpu.c */
/* Reap the worker (killing it first when kill_first, or when it does not exit within 3 s);
 * describes how it ended in `how`. */
void gpu_reap(gpu *g, int kill_first, char *how, size_t howlen);
/* A frame from the worker before the deadline: its type and payload. 0, -1 (EOF or error),
 * -2 (deadline passed), -3 (a malformed header: err says why). */
int gpu_recv_frame(gpu *g, uint32_t *type, dbuf *payload, double deadline, cterr *err);
/* "GPU worker killed by signal 11 (Segmentation fault); its last message: ..." */
void gpu_describe_death(gpu *g, int kill_first, char *out, size_t n);
/* Send the remembered setup and wait for its answer. *died (may be NULL) says whether the
 * worker died on it (killed from outside, say), as opposed to answering with an error or
 * overrunning: only a death is worth another worker. */
int gpu_send_setup(gpu *g, int slot, cterr *err, int *died);
/* A fresh worker with the problems set up, after a fault or a timeout. A worker that dies
 * in the setup is replaced, SETUP_ATTEMPTS times at most. */
int gpu_restart(gpu *g, cterr *err);

#endif
