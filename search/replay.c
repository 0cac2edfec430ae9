/* replay: see replay.h. This file: the replay object (filled by the loaders: replay_load.c for
 * Kernel Tuner caches and the mapping onto a space's configset, replay_cutune.c for cutune's
 * results files, both calling only into this file) and reading a recorded file. */
#include "replay.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "replay_impl.h"

replay *replay_alloc(size_t cap) {
  replay *r = xcalloc(1, sizeof *r);
  r->cap = cap ? cap : 1;
  r->value = xmalloc(r->cap * sizeof(double));
  r->status = xmalloc(r->cap * sizeof(rec_status));
  r->compile_ms = xmalloc(r->cap * sizeof(double));
  r->cost_s = xmalloc(r->cap * sizeof(double));
  r->nreps = xcalloc(r->cap, sizeof(int));
  r->reps = xcalloc(r->cap, sizeof(double *));
  r->opt = -1;
  return r;
}

void replay_set(replay *r, size_t i, rec_status st, double value, double compile_ms, double cost_s, const double *reps,
                int nreps) {
  if (i >= r->cap) return; /* cannot happen: callers size the replay to the configset */
  if (i >= r->n) r->n = i + 1;
  r->status[i] = st;
  r->value[i] = st == ST_OK && isfinite(value) ? value : INFINITY;
  if (st == ST_OK && !isfinite(value)) r->status[i] = ST_RUNTIME_FAULT;
  r->compile_ms[i] = compile_ms;
  r->cost_s[i] = cost_s;
  free(r->reps[i]);
  r->reps[i] = NULL, r->nreps[i] = 0;
  if (nreps > 0) {
    r->reps[i] = xmalloc((size_t)nreps * sizeof(double));
    memcpy(r->reps[i], reps, (size_t)nreps * sizeof(double));
    r->nreps[i] = nreps;
  }
}

void replay_warn(replay *r, const char *fmt, ...) {
  if (r->nwarnings++ >= REPLAY_MAX_WARNINGS) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  dbuf_printf(&r->warnings, "%s\n", line);
}

const char *replay_warnings(const replay *r) { return r->warnings.data ? r->warnings.data : ""; }

void replay_finish(replay *r) {
  if (r->nwarnings > REPLAY_MAX_WARNINGS) {
    dbuf_printf(&r->warnings, "(%zu more warnings like these)\n", r->nwarnings - REPLAY_MAX_WARNINGS);
    r->nwarnings = REPLAY_MAX_WARNINGS;
  }
  r->nfailed = 0;
  r->opt = -1;
  for (size_t i = 0; i < r->n; i++) {
    if (!isfinite(r->value[i])) r->nfailed++;
    else if (r->opt < 0 || r->value[i] < r->value[r->opt]) r->opt = (long)i;
  }
}

void replay_free(replay *r) {
  if (!r) return;
  for (size_t i = 0; i < r->cap; i++) free(r->reps[i]);
  free(r->value), free(r->status), free(r->compile_ms), free(r->cost_s), free(r->nreps), free(r->reps);
  configset_free(r->own_cs);
  free(r->device), free(r->kernel), free(r->sizes), free(r->date);
  dbuf_free(&r->warnings);
  free(r->title), free(r->problem), free(r);
}

const configset *replay_configs(const replay *r) { return r->cs; }
size_t replay_count(const replay *r) { return r->n; }
const char *replay_title(const replay *r) { return r->title ? r->title : ""; }
const char *replay_problem(const replay *r) { return r->problem ? r->problem : ""; }
const char *replay_device(const replay *r) { return r->device; }
const char *replay_kernel(const replay *r) { return r->kernel; }
const char *replay_sizes(const replay *r) { return r->sizes; }
const char *replay_date(const replay *r) { return r->date; }
size_t replay_nfailed(const replay *r) { return r->nfailed; }
double replay_value(const replay *r, size_t i) { return i < r->n ? r->value[i] : INFINITY; }
rec_status replay_status(const replay *r, size_t i) { return i < r->n ? r->status[i] : ST_INVALID; }
int replay_nreps(const replay *r, size_t i) { return i < r->n ? r->nreps[i] : 0; }
const double *replay_reps(const replay *r, size_t i) { return i < r->n ? r->reps[i] : NULL; }
double replay_compile_ms(const replay *r, size_t i) { return i < r->n ? r->compile_ms[i] : NAN; }
double replay_cost_seconds(const replay *r, size_t i) { return i < r->n ? r->cost_s[i] : 0; }
long replay_optimum(const replay *r) { return r->opt; }

int replay_evaluate(void *ctx, size_t idx, double *value, double *cost_seconds, rec_status *status, cterr *err) {
  replay_eval *e = ctx;
  const replay *r = e->r;
  if (idx >= r->n) return cterr_set(err, "configuration %zu is outside the replayed space (%zu)", idx, r->n);
  *status = r->status[idx];
  *cost_seconds = r->cost_s[idx];
  *value = r->value[idx];
  if (e->noisy && r->status[idx] == ST_OK && r->nreps[idx] > 0)
    *value = r->reps[idx][rng_below(&e->rng, (uint64_t)r->nreps[idx])];
  return 0;
}

int replay_read_file(const char *path, dbuf *out, cterr *err) {
  return input_read(path, "recorded file", input_data_max(), 1, out, err);
}
