/* replay_impl: the replay struct, shared by replay.c and replay_cutune.c (internal). */
#ifndef CUTUNE_REPLAY_IMPL_H
#define CUTUNE_REPLAY_IMPL_H

#include <errno.h>

#include "replay.h"

struct replay {
  configset *own_cs; /* built from the file (NULL when a space's configset is borrowed) */
  const configset *cs;
  char *title, *problem;
  char *device, *kernel, *sizes, *date; /* Kernel Tuner header fields (NULL for cutune files) */
  size_t n, cap;
  double *value; /* INFINITY when failed */
  rec_status *status;
  double *compile_ms, *cost_s;
  int *nreps;
  double **reps;
  size_t nfailed;
  long opt;
  dbuf warnings; /* "file:line: ..." lines about what was skipped or counted as failed */
  size_t nwarnings;
};

/* One warning line (at most REPLAY_MAX_WARNINGS are kept; the rest are counted). */
#define REPLAY_MAX_WARNINGS 20
void replay_warn(replay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

replay *replay_alloc(size_t cap);
void replay_set(replay *r, size_t i, rec_status st, double value, double compile_ms, double cost_s, const double *reps,
                int nreps);
void replay_finish(replay *r); /* counts failures, finds the optimum */
int replay_load_cutune(const char *path, const char *problem, replay **out, cterr *err);

#endif
