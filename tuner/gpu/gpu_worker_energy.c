/* gpu_worker_energy: energy per launch of one configuration, from NVML's total-energy counter,
 * measured over a window long enough to be honest (the energy pass of `cutune run` asks for
 * it for the configurations near the time front only; see tune_energy.c).
 *
 * Why a pass of its own: the counter (nvmlDeviceGetTotalEnergyConsumption, mJ since the driver
 * loaded) advances in steps (tens of ms apart on the H200), while the timing loop of a fast
 * kernel lasts well under 0.25 s (200 samples of 0.5 ms batches: 0.1 s), so a reading over
 * the timing loop was either missing or off by a whole step.
 *
 * How: the kernel runs back to back for `window` ms with the queue kept ~40 ms ahead of the
 * GPU, so the GPU never idles while the host reads. Both readings are taken just after the
 * counter steps (the host reads it after each 5 ms chunk), so the energy between them belongs to exactly the host
 * interval between them: power = dE/dt. The GPU time per launch comes from events around the
 * same launches; energy per launch = power x time per launch. Where the time pass flushed L2
 * before each launch (working set < 2 x L2), the same is done here, and the energy of the
 * flushes alone (a second window of flushes only) is subtracted. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu_worker_int.h"

#define EN_RING 12      /* chunk events in flight */
#define EN_AHEAD 8      /* chunks (40 ms) queued ahead of the one the host waits for */
#define EN_CHUNK_MS 5.0 /* GPU time per chunk: the host sees a counter step within 5 ms */
#define EN_POLL_S 0.3   /* longest wait for the counter to step (the GPU stays fed meanwhile) */

/* One iteration: a launch, a flush then a launch, or a flush alone. */
static CUresult iterate(worker *w, CUfunction f, const launch_geom *g, int flush, int kernel, unsigned j) {
  CUresult r = CUDA_SUCCESS;
  if (flush) r = w->cu->cuMemsetD32Async(w->scratch, j, w->scratch_bytes / 4, w->stream);
  if (!r && kernel) r = wk_launch(w, f, g);
  return r;
}

typedef struct en_state {
  worker *w;
  CUfunction f;
  const launch_geom *g;
  int flush, kernel, per_chunk;
  long chunks, done; /* enqueued, waited for */
  unsigned iter;
} en_state;

static CUresult enqueue_chunk(en_state *s) {
  CUresult r = CUDA_SUCCESS;
  for (int k = 0; k < s->per_chunk && !r; k++) r = iterate(s->w, s->f, s->g, s->flush, s->kernel, s->iter++);
  if (!r) r = s->w->cu->cuEventRecord(s->w->ev[s->chunks % EN_RING], s->w->stream);
  if (!r) s->chunks++;
  return r;
}

/* Wait for the oldest chunk and queue one more, so the GPU stays EN_AHEAD chunks ahead. */
static CUresult advance(en_state *s) {
  CUresult r = s->w->cu->cuEventSynchronize(s->w->ev[s->done % EN_RING]);
  if (!r) s->done++;
  return r ? r : enqueue_chunk(s);
}

/* The counter's next step after `from`, read within one chunk of it; the GPU is kept busy
 * with the same work meanwhile. */
static int64_t wait_step(en_state *s, int64_t from, double *when, CUresult *r) {
  double t0 = now_seconds();
  int64_t e = nvml_energy_mj(s->w->nv);
  while (e == from && now_seconds() - t0 < EN_POLL_S && !*r) {
    *r = advance(s);
    e = nvml_energy_mj(s->w->nv);
  }
  *when = now_seconds();
  return e;
}

/* Average power (mW) and GPU time per iteration (ms) over a window of window_s seconds. */
static CUresult measure_window(worker *w, CUfunction f, const launch_geom *g, int flush, int kernel, double iter_ms,
                               double window_s, double *power_mw, double *per_iter_ms) {
  const cuda_api *cu = w->cu;
  en_state s = {.w = w, .f = f, .g = g, .flush = flush, .kernel = kernel};
  double pc = ceil(EN_CHUNK_MS / (iter_ms > 1e-4 ? iter_ms : 1e-4));
  s.per_chunk = pc > 100000 ? 100000 : (int)pc;
  CUevent first = w->ev[EN_RING], last = w->ev[EN_RING + 1];
  CUresult r = CUDA_SUCCESS;
  float ms = 0;
  *power_mw = *per_iter_ms = NAN;
  /* calibrate: the guess of one iteration may be far off (a flush alone, a batch's median) */
  if ((r = cu->cuEventRecord(first, w->stream)) || (r = enqueue_chunk(&s)) ||
      (r = cu->cuEventRecord(last, w->stream)) || (r = cu->cuEventSynchronize(last)) ||
      (r = cu->cuEventElapsedTime(&ms, first, last)))
    return r;
  s.chunks = s.done = 0;
  if (ms > 0) {
    pc = ceil(EN_CHUNK_MS / (ms / s.per_chunk > 1e-5 ? ms / s.per_chunk : 1e-5));
    s.per_chunk = pc > 1000000 ? 1000000 : (int)pc;
  }
  for (int k = 0; k < EN_AHEAD && !r; k++) r = enqueue_chunk(&s); /* the lead */
  double tw = now_seconds(); /* 0.1 s of warm-up: clocks and power settle on this work */
  do r = r ? r : advance(&s);
  while (!r && now_seconds() - tw < 0.1);
  long first_chunk = s.chunks; /* launches after this event are timed */
  if (!r) r = cu->cuEventRecord(first, w->stream);
  if (r) return r;
  double h0, h1;
  int64_t e = nvml_energy_mj(w->nv), e0, e1 = -1;
  if (e < 0) return CUDA_ERROR_NOT_SUPPORTED; /* no counter on this device: no figure */
  e0 = wait_step(&s, e, &h0, &r);
  while (!r && now_seconds() - h0 < window_s) r = advance(&s);
  if (!r) e1 = wait_step(&s, nvml_energy_mj(w->nv), &h1, &r);
  if (r) return r;
  long last_chunk = s.chunks;
  if ((r = cu->cuEventRecord(last, w->stream)) || (r = cu->cuStreamSynchronize(w->stream))) return r;
  if ((r = cu->cuEventElapsedTime(&ms, first, last))) return r;
  long iters = (last_chunk - first_chunk) * (long)s.per_chunk;
  if (e1 > e0 && h1 > h0 && iters > 0) {
    *power_mw = (double)(e1 - e0) / (h1 - h0);
    *per_iter_ms = ms / (double)iters;
  }
  return CUDA_SUCCESS;
}

void wk_energy(worker *w, CUfunction f, const wire_job *job, wire_result *res) {
  double window_s = job->want_energy / 1000.0;
  if (window_s <= 0 || !isfinite(res->t_median)) return;
  /* the record is ok either way; its message says why there is no figure */
  if (!w->nv) {
    wk_note(res, "no energy figure: NVML (libnvidia-ml.so.1) could not be opened for this device");
    return;
  }
  int flush = res->flush_l2;
  double p, t, pf = 0, tf = 0;
  /* a first guess of one iteration: the timed median, plus the flush when there is one */
  double guess = res->t_median + (flush ? 0.1 : 0);
  CUresult r = measure_window(w, f, &job->geom, flush, 1, guess, window_s, &p, &t);
  if (!r && flush && isfinite(p)) r = measure_window(w, f, &job->geom, 1, 0, 0.1, window_s, &pf, &tf);
  if (r == CUDA_ERROR_NOT_SUPPORTED) {
    wk_note(res, "no energy figure: nvmlDeviceGetTotalEnergyConsumption is not supported here");
    return;
  }
  if (r) {
    res->fatal = wk_context_dead(w, r);
    if (res->fatal) wk_fail(res, ST_RUNTIME_FAULT, "energy pass: %s", cuda_errstr(r));
    return;
  }
  if (!isfinite(p) || !isfinite(pf)) {
    wk_note(res, "no energy figure: the energy counter did not advance in a %.1f s window", window_s);
    return;
  }
  double mj = p * t * 1e-3 - pf * tf * 1e-3; /* mW x ms = uJ: x 1e-3 for mJ */
  if (mj > 0) res->energy_mj = mj;
  else wk_note(res, "no energy figure: the flushes alone drew as much as with the kernel");
}
