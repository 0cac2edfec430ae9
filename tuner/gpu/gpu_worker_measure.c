/* gpu_worker_measure: one configuration in the GPU worker — load its cubin, check the launch
 * against the kernel's and device's limits, run it once on poisoned outputs and compare with
 * the reference on the device, then time it.
 *
 * Timing. Memory-bound kernels of tens of microseconds are the hard case: launch gaps and the
 * L2 cache (50 MB on an H100/H200) distort them. When all buffers together fit in twice the L2,
 * consecutive launches would find their data cached, so L2 is flushed (a read of a 2 x L2
 * buffer, which leaves it clean: flush_clean) before every launch and single launches are timed with an event pair each. Otherwise batches of K
 * back-to-back launches (K chosen so that a batch lasts >= WK_BATCH_MS) are timed between
 * consecutive events, which takes launch overhead and event resolution out of the figure.
 * Samples are enqueued in chunks of ~5 ms between host synchronisations, and collected until
 * the relative standard error of the mean is below target (after min_samples), max_samples
 * is reached, 60% of the job's time limit is spent, or the racing rule says the configuration
 * is slower than the k-th best (before there is one: race_early times the best so far) by more
 * than its noise explains (raced: t_raced, race_ref). The whole method, with the racing rule
 * and its statistics: docs/MEASURE.md. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile.h"
#include "gpu_worker_int.h"

#define WK_SAMPLE_FLOOR_MS 12.0 /* min_samples of long launches: about this much of launches, */
#define WK_SAMPLE_FLOOR_N 3     /* ... and never fewer than this many (5 before 2026-12-08) */
#define WK_ISO_CAP_MS 8.0       /* the isolated time: about this much of launches at most */
/* A batch's length. An event pair between launches costs the H200 ~0.5-1 us (single launches
 * against queued ones, 2026-12-03): 0.2-0.4 % of a 0.25 ms batch, the same share for every
 * configuration (K is chosen per configuration), within --rse; the samples of a fully timed
 * configuration take half the GPU time they took at 0.5 ms. */
#define WK_BATCH_MS 0.25
#define WK_TIGHT 0.2            /* a contender's relative error this far under --rse needs no more samples */

int wk_context_dead(worker *w, CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
  case CUDA_ERROR_UNKNOWN: return 1;
  default: return w->cu->cuCtxSynchronize() != CUDA_SUCCESS;
  }
}

CUresult wk_prepare_run(worker *w) {
  CUresult r = CUDA_SUCCESS;
  for (int i = 0; i < w->p->setup.nargs && !r; i++) {
    wk_arg *a = &w->p->arg[i];
    if (w->p->setup.args[i].kind == ARG_OUTPUT) /* poisoned; zeroed where the space says fill = "zero" */
      r = w->cu->cuMemsetD8Async(a->d, w->p->setup.args[i].fill == FILL_ZERO ? 0 : 0xff, a->bytes, w->stream);
    else if (w->p->setup.args[i].kind == ARG_INOUT) r = w->cu->cuMemcpyDtoDAsync(a->d, a->orig, a->bytes, w->stream);
  }
  return r;
}

CUresult wk_smem_optin(worker *w, CUfunction f, const launch_geom *g) {
  if (g->dyn_smem <= 48 * 1024) return CUDA_SUCCESS;
  return w->cu->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)g->dyn_smem);
}

CUresult wk_launch(worker *w, CUfunction f, const launch_geom *g) {
  if (w->nseq && f == w->seq_main) return wk_seq_launch(w); /* a launch sequence (gpu_worker_launches.c) */
  return w->cu->cuLaunchKernel(f, g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2],
                               g->dyn_smem, w->stream, w->launch_params ? w->launch_params : w->p->params, NULL);
}

/* wk_fail, wk_fail_run and wk_compare live in gpu_worker_check.c */
#define fail wk_fail
#define fail_run wk_fail_run

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double wk_median(const double *v, int n, double *scratch) {
  memcpy(scratch, v, (size_t)n * sizeof *v);
  qsort(scratch, (size_t)n, sizeof *scratch, cmp_double);
  return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

/* The L2 flush before a flushed launch: the compare helper reads the 2 x L2 scratch buffer
 * against itself, which leaves L2 full of clean lines; the previous launch's dirty lines are
 * written back during it, before the launch's first event. (A memset of the buffer, the flush
 * of the timing before 2026-12-03, left L2 full of dirty lines, and the launch paid for their
 * write-back: a 7 us transpose of 3002 x 1000 timed 11.8 us, with a heavy tail, whose median
 * moved by 5 % between two runs on the H200.) */
static CUresult flush_clean(worker *w) {
  unsigned long long words = w->scratch_bytes / 4;
  unsigned long long blocks = (words + 255) / 256, cap = (unsigned long long)w->info.sms * 16;
  if (blocks > cap) blocks = cap;
  void *pf[] = {&w->scratch, &w->scratch, &words, &w->cmp_res};
  return w->cu->cuLaunchKernel(w->cmp_bits[2], (unsigned)blocks, 1, 1, 256, 1, 1, 0, w->stream, pf, NULL);
}

/* Enqueue one sample (flush mode: the clean flush + event pair around one launch) or K launches. */
static CUresult enqueue_timed(worker *w, CUfunction f, const launch_geom *g, int flush, int K, int j) {
  const cuda_api *cu = w->cu;
  CUresult r = CUDA_SUCCESS;
  if (flush) {
    if ((r = flush_clean(w)) || (r = cu->cuEventRecord(w->ev[2 * j], w->stream)) || (r = wk_launch(w, f, g))) return r;
    return cu->cuEventRecord(w->ev[2 * j + 1], w->stream);
  }
  for (int k = 0; k < K && !r; k++) r = wk_launch(w, f, g);
  return r ? r : cu->cuEventRecord(w->ev[j + 1], w->stream);
}

/* The lead of a chunk of batches of a kernel longer than this: a spin of ct_spin this long, not
 * an untimed launch of the kernel (the host enqueues a launch and an event in a few
 * microseconds; 2026-12-07: a 3 ms GEMM's chunk of 2 samples took 3 launches before). */
#define WK_LEAD_MS 0.05

static CUresult lead_spin(worker *w) {
  unsigned long long ns = (unsigned long long)(WK_LEAD_MS * 1e6);
  void *pp[] = {&ns};
  return w->cu->cuLaunchKernel(w->spin, 1, 1, 1, 1, 1, 1, 0, w->stream, pp, NULL);
}

/* The one-sided 99.9 % quantile of Student's t with df degrees of freedom (df >= 1); between
 * tabulated degrees the larger (more cautious) value. */
static double t999(int df) {
  static const double t[31] = {0,     318.31, 22.327, 10.215, 7.173, 5.893, 5.208, 4.785, 4.501, 4.297, 4.144,
                               4.025, 3.930,  3.852,  3.787,  3.733, 3.686, 3.646, 3.610, 3.579, 3.552, 3.527,
                               3.505, 3.485,  3.467,  3.450,  3.435, 3.421, 3.408, 3.396, 3.385};
  if (df < 1) return INFINITY;
  if (df <= 30) return t[df];
  return df <= 40 ? 3.385 : df <= 60 ? 3.307 : df <= 120 ? 3.232 : 3.160;
}

/* The racing rule (docs/MEASURE.md): every sample is slower than bound, and the mean's excess
 * over bound is beyond the 99.9 % one-sided t bound of the samples' noise. The first part needs
 * no model of the noise (were the true median at or under bound, each sample would exceed it
 * with probability 1/2 at most); the second sees the noise the samples show. */
static int race_lost(int n, double mean, double sd, double min, double bound) {
  return n >= 2 && min > bound && mean - bound > t999(n - 1) * sd / sqrt((double)n);
}

/* The best median so far of the job's problem, which decides who is a contender (twice the
 * samples, the isolated time) and, before the k-th best exists, the racing bound: the engine's
 * (best_ms) or, in a racing job, this worker's own best timed in full on the problem where it
 * is faster. The engine's lags behind by the jobs in flight: the job queued behind a problem's
 * first one left the engine before any time came back. A job without racing keeps the engine's
 * alone (the energy pass: all contenders; a best_ms <= 0: none). */
static double job_best(const worker *w, const wire_job *job) {
  double best = job->best_ms;
  if (job->race_samples > 0 && !(best <= 0) && isfinite(w->p->best_full) && !(best <= w->p->best_full))
    best = w->p->best_full;
  return best;
}

/* The bound a job races against (docs/MEASURE.md "Racing"), NAN for none, and which reference
 * it came from into *ref (WIRE_RACE_*): the k-th best fully timed median x (1 + margin) once
 * the engine has one; before that, the best so far (job_best) x race_early. */
static double race_bound(const wire_job *job, double best, int *ref) {
  *ref = WIRE_RACE_NONE;
  if (job->race_samples <= 0) return NAN;
  if (isfinite(job->race_ms) && job->race_ms > 0) {
    *ref = WIRE_RACE_KTH;
    return job->race_ms * (1 + (job->race_margin > 0 ? job->race_margin : 0));
  }
  if (!(job->race_early > 1) || !isfinite(best) || !(best > 0)) return NAN;
  *ref = WIRE_RACE_BEST;
  return best * job->race_early;
}

/* Warm-up before the samples: ~WK_WARM_MS of launches (the clocks up, the instruction cache
 * filled), or ~WK_WARM_HOT_MS when the worker's previous job ended less than WK_HOT_GAP_MS
 * before this one started (the GPU never sat idle long enough to clock down); none for a launch
 * of a millisecond or more (WK_LONG_MS), whose check launch was warm-up enough. */
#define WK_WARM_MS 1.0
#define WK_WARM_HOT_MS 0.2
#define WK_HOT_GAP_MS 5.0
#define WK_LONG_MS 1.0 /* a long launch: its check launch is its estimate, and it gets no warm-up */

/* A long launch whose check launch took more than WK_FAR times the racing bound: that launch
 * counts as the first of the race_samples observations of the rule's first part, so the first
 * test comes one sample sooner (never before 2 samples: the t part needs them). docs/MEASURE.md
 * "Racing" gives the statistics. */
#define WK_FAR 2.0
/* ... and one whose check launch took more than WK_FAR_ONE times the bound is raced on that
 * launch alone (one sample: nothing more is launched). */
#define WK_FAR_ONE 4.0

/* GB/s, the share of the copy and GFLOP/s of a launch of median ms, where the space gives
 * its bytes and flops. */
static void set_rates(const worker *w, wire_result *res, double median) {
  double sec = median * 1e-3;
  if (isfinite(w->p->setup.bytes) && w->p->setup.bytes > 0) {
    res->gbps = w->p->setup.bytes / sec / 1e9;
    if (isfinite(w->info.copy_gbps) && w->info.copy_gbps > 0) res->copy_share = res->gbps / w->info.copy_gbps;
  }
  if (isfinite(w->p->setup.flops) && w->p->setup.flops > 0) res->gflops = w->p->setup.flops / sec / 1e9;
}

/* Time a checked configuration; t1 is the first estimate of one launch (ms), t1_check 1 when it
 * is the check launch's own time, gap_ms how long the GPU had been without work of this worker
 * when the job started, best the problem's best so far (job_best). */
static void wk_time(worker *w, CUfunction f, const wire_job *job, double t0, double t1, int t1_check, double gap_ms,
                    double best, wire_result *res) {
  const cuda_api *cu = w->cu;
  const launch_geom *g = &job->geom;
  double timeout = job->timeout_s > 0 ? job->timeout_s : 10.0, budget_end = t0 + 0.6 * timeout;
  int min_s = job->min_samples > 0 ? job->min_samples : 10;
  int max_s = job->max_samples > 0 ? job->max_samples : 1000;
  if (max_s < min_s) max_s = min_s;
  double target = job->target_rse > 0 ? job->target_rse : 0.005;
  int flush = w->scratch && w->p->working_set < 2 * (size_t)w->info.l2_bytes;
  CUresult r = CUDA_SUCCESS;
  float ms = 0;
  if (!(t1 > 1e-4)) t1 = 1e-4;

  /* Racing on the check launch alone: a launch of a millisecond or more that took over
   * WK_FAR_ONE times the bound. It ran the same kernel on the same inputs, warm from the
   * problem's setup and the jobs before it; what can make a module's first launch slower than
   * the next (a late start, lazy loading) is far below a factor of 4 at a millisecond. */
  int ref;
  double bound = race_bound(job, best, &ref);
  int race = isfinite(bound);
  if (race && t1_check && t1 >= WK_LONG_MS && t1 > WK_FAR_ONE * bound) {
    res->t_median = res->t_min = res->t_mean = t1;
    res->t_std = 0;
    res->samples = 1;
    res->flush_l2 = flush;
    res->batch = 1;
    res->t_raced = bound;
    res->race_ref = ref;
    set_rates(w, res, t1);
    return;
  }

  double want = gap_ms < WK_HOT_GAP_MS ? WK_WARM_HOT_MS : WK_WARM_MS;
  int warm = t1 >= WK_LONG_MS ? 0 : (int)ceil(want / t1);
  if (warm > 200) warm = 200;
  double left_ms = (budget_end - now_seconds()) * 1e3;
  if (warm * t1 > 0.25 * left_ms) warm = (int)(0.25 * left_ms / t1);
  /* no synchronisation after the warm-up: the first chunk follows it on the stream */
  for (int k = 0; k < warm; k++)
    if ((r = wk_launch(w, f, g))) {
      fail_run(w, res, r, "warm-up launch");
      return;
    }

  /* Long launches (GEMMs of milliseconds) need fewer samples for the same confidence, and the
   * tuning rate is the GPU's time: unless the count was given, min_samples launches take at
   * most ~WK_SAMPLE_FLOOR_MS, WK_SAMPLE_FLOOR_N samples at least (5 for 2.4 ms, 4 for 3 ms, 3
   * from 4 ms on; samples come in chunks of ~5 ms, so the count stops at the chunk that reaches
   * it: 4 for launches of 2.5-5 ms outside racing's first chunk of 3; the relative-error target still applies on top, and a contender for the best
   * gets twice the samples unless its mean is already far tighter). A 2.8 ms SGEMM on the H200
   * has a standard deviation of ~0.05 % between launches: 3 samples put its mean within ~0.03 %. */
  if (!job->min_samples_fixed && min_s > WK_SAMPLE_FLOOR_N && min_s * t1 > WK_SAMPLE_FLOOR_MS) {
    min_s = (int)ceil(WK_SAMPLE_FLOOR_MS / t1);
    if (min_s < WK_SAMPLE_FLOOR_N) min_s = WK_SAMPLE_FLOOR_N;
  }
  int K = 1;
  if (!flush) {
    double k = ceil(WK_BATCH_MS / t1);
    K = k > 100000 ? 100000 : (int)k;
  }
  int chunk = (int)ceil(5.0 / (K * t1));
  if (chunk < 1) chunk = 1;
  if (chunk > WK_MAX_CHUNK) chunk = WK_MAX_CHUNK;
  /* Racing: the first chunk is race_samples long (one less for a long launch far above the
   * bound: its check launch was the first); the rule is tried after each chunk. */
  int rs = job->race_samples < 2 ? 2 : job->race_samples;
  if (race && t1_check && t1 >= WK_LONG_MS && t1 > WK_FAR * bound && rs > 2) rs--;
  int next = race ? (rs < WK_MAX_CHUNK ? rs : WK_MAX_CHUNK) : chunk;

  double *s = xmalloc(2 * (size_t)max_s * sizeof *s), *tmp = s + max_s;
  int n = 0;
  double median = NAN, mean = 0, sd = 0, min = INFINITY;
  nvml_sample ns; /* read during each chunk, while the GPU is busy: never on the idle path */
  memset(&ns, 0, sizeof ns);
  double tw0 = now_seconds();
  while (n < max_s) {
    int m = next < max_s - n ? next : max_s - n;
    /* batches: something keeps the GPU busy while the host enqueues the chunk, or its first
     * batch would include the host's launch latency: before the first chunk, the warm-up
     * launches where there were any; else one untimed launch of the kernel, or for a kernel
     * longer than WK_LEAD_MS a spin that long (ct_spin) instead of a whole launch */
    r = flush || (n == 0 && warm > 0) ? CUDA_SUCCESS : t1 <= WK_LEAD_MS ? wk_launch(w, f, g) : lead_spin(w);
    if (!r && !flush) r = cu->cuEventRecord(w->ev[0], w->stream);
    for (int j = 0; j < m && !r; j++) r = enqueue_timed(w, f, g, flush, K, j);
    if (r) break;
    nvml_read(w->nv, &ns); /* while the GPU is busy with the chunk */
    if ((r = cu->cuEventSynchronize(w->ev[flush ? 2 * m - 1 : m]))) break;
    for (int j = 0; j < m && !r; j++) {
      r = flush ? cu->cuEventElapsedTime(&ms, w->ev[2 * j], w->ev[2 * j + 1])
                : cu->cuEventElapsedTime(&ms, w->ev[j], w->ev[j + 1]);
      s[n + j] = (double)ms / K;
      if (s[n + j] < min) min = s[n + j];
    }
    if (r) break;
    n += m;
    mean = 0;
    for (int i = 0; i < n; i++) mean += s[i];
    mean /= n;
    sd = 0;
    for (int i = 0; i < n; i++) sd += (s[i] - mean) * (s[i] - mean);
    sd = n > 1 ? sqrt(sd / (n - 1)) : 0;
    median = wk_median(s, n, tmp);
    if (race && n >= rs && race_lost(n, mean, sd, min, bound)) {
      res->t_raced = bound;
      res->race_ref = ref;
      break;
    }
    double now = now_seconds();
    /* a contender for the best gets twice the samples: the winner's figure must hold; unless
     * its mean is already five times tighter than asked (a long GEMM's launches vary by ~0.05 %:
     * more samples would not move its figure) */
    int contender = isfinite(best) && best > 0 && median < 1.03 * best;
    double rse = sd / sqrt(n);
    if (n >= min_s && rse < target * mean && (!contender || n >= 2 * min_s || rse < WK_TIGHT * target * mean)) break;
    if (now >= budget_end) break;
    /* racing: a contender goes on in whole chunks, as without racing; the others in chunks
     * twice the last, so that the rule is tried again soon */
    next = !race || contender ? chunk : 2 * next < chunk ? 2 * next : chunk;
    double per = (now - tw0) / n; /* seconds per sample so far: keep the next chunk inside the budget */
    int fit = (int)((budget_end - now) / per);
    if (fit < next) next = fit < 1 ? 1 : fit;
  }
  free(s);
  if (r) {
    fail_run(w, res, r, "timing");
    return;
  }
  res->t_median = median;
  res->t_min = min;
  res->t_mean = mean;
  res->t_std = sd;
  res->samples = n;
  res->flush_l2 = flush;
  res->batch = K;
  set_rates(w, res, median);
  /* Energy is not read here: the loop is far shorter than the counter's steps (it recorded
   * null for every configuration); wk_energy measures it over a window of its own. */
  res->sm_clock_mhz = ns.sm_mhz;
  res->mem_clock_mhz = ns.mem_mhz;
  res->throttle_reasons = ns.reasons;
  res->temperature_c = ns.temp_c;
  /* the problem's best fully timed median on this worker: the best of the job queued behind
   * it (job_best) */
  if (!isfinite(res->t_raced) && isfinite(median) && median > 0 && !(w->p->best_full <= median))
    w->p->best_full = median;
}

/* n single launches of f (or of ct_empty when f is NULL), each after a read-only L2 flush (the
 * compare helper reading the 2 x L2 scratch buffer against itself, which leaves L2 full of clean
 * lines), each between its own event pair; their median in ms into *ms. */
static CUresult iso_median(worker *w, CUfunction f, const launch_geom *g, int n, double *ms_out) {
  const cuda_api *cu = w->cu;
  CUresult r = CUDA_SUCCESS;
  for (int j = 0; j < n && !r; j++) {
    if ((r = flush_clean(w)) || (r = cu->cuEventRecord(w->ev[2 * j], w->stream))) break;
    r = f ? wk_launch(w, f, g) : cu->cuLaunchKernel(w->empty, 1, 1, 1, 32, 1, 1, 0, w->stream, NULL, NULL);
    if (!r) r = cu->cuEventRecord(w->ev[2 * j + 1], w->stream);
  }
  if (!r) r = cu->cuEventSynchronize(w->ev[2 * n - 1]);
  double *s = xmalloc(2 * (size_t)n * sizeof *s);
  float ms = 0;
  for (int j = 0; j < n && !r; j++) {
    r = cu->cuEventElapsedTime(&ms, w->ev[2 * j], w->ev[2 * j + 1]);
    s[j] = ms;
  }
  if (!r) *ms_out = wk_median(s, n, s + n);
  free(s);
  return r;
}

/* The isolated per-launch time: the median of single launches after a read-only L2 flush, each
 * between its own event pair, less the floor of that measurement (the same sequence around
 * ct_empty, measured once per worker). Nothing of the previous launch overlaps it and no dirty
 * L2 lines of its predecessor are written back during it: the conditions of Nsight Compute's
 * gpu__time_duration (caches flushed and invalidated before the profiled launch). Back-to-back
 * batches include both effects, which on the H200 cost a DRAM-bound kernel a few percent
 * (132.8 us back to back, 127.8 us under ncu for the transpose winner; a memset flush, which
 * leaves L2 dirty, read 133.8 us). Without the floor the event pair read 1.4-3.9 us above ncu
 * on every configuration profiled (H200, 2026-12-01): launch and event overhead, not kernel. */
static void wk_time_isolated(worker *w, CUfunction f, const wire_job *job, wire_result *res) {
  int n = job->isolated_samples < WK_MAX_CHUNK ? job->isolated_samples : WK_MAX_CHUNK;
  if (!w->scratch || n <= 0) return;
  /* at most ~WK_ISO_CAP_MS of launches (at least 3): a 3 ms GEMM gets 3, not 21 (the tuning rate);
   * a launch longer than that gets one (a 21 ms reduction: what a neighbour's overlap or write-back
   * could add is microseconds, far below its spread) */
  if (isfinite(res->t_median) && res->t_median > 0) {
    int cap = (int)ceil(WK_ISO_CAP_MS / res->t_median);
    if (cap < 3) cap = res->t_median > WK_ISO_CAP_MS ? 1 : 3;
    if (n > cap) n = cap;
  }
  double raw = NAN;
  CUresult r = 0;
  if (!isfinite(w->iso_floor_ms)) {
    double fl = NAN;
    if (!(r = iso_median(w, NULL, NULL, 64, &fl))) w->iso_floor_ms = fl;
  }
  if (!r) r = iso_median(w, f, &job->geom, n, &raw);
  if (!r) {
    double fl = isfinite(w->iso_floor_ms) && w->iso_floor_ms < raw ? w->iso_floor_ms : 0;
    res->t_isolated = raw - fl;
    res->t_iso_floor = fl;
  } else res->fatal = wk_context_dead(w, r); /* the timing figures stand; a dead context ends the worker */
}

static int attr(worker *w, CUfunction f, CUfunction_attribute a) {
  int v = -1;
  if (w->cu->cuFuncGetAttribute(&v, a, f)) v = -1;
  return v;
}

void wk_measure(worker *w, const wire_job *job, const char *kernel, const void *cubin, wire_result *res) {
  const cuda_api *cu = w->cu;
  const launch_geom *g = &job->geom;
  double t0 = now_seconds(), t_load = 0, t_check = 0, t_timed = 0; /* when each stage ended (0: not yet) */
  double gap_ms = w->last_end > 0 ? (t0 - w->last_end) * 1e3 : INFINITY;
  CUmodule mod = NULL;
  CUfunction f;
  CUresult r;
  int reused = 0;
  double est = 0;
  res->block_threads = (int)launch_threads(g);
  res->smem_dynamic = (int)g->dyn_smem;
  size_t ilen = 0; /* a launch sequence's bundle: its first program here, the rest in wk_seq_setup */
  const void *img = compile_bundle_image(cubin, job->cubin_len, 0, &ilen);
  if (!img || (r = wk_module_get(w, img, ilen, &mod, &reused))) {
    if (!img) r = CUDA_ERROR_INVALID_IMAGE;
    mod = NULL;
    res->fatal = wk_context_dead(w, r);
    fail(res, res->fatal ? ST_RUNTIME_FAULT : ST_LAUNCH_ERROR, "loading the module: %s", cuda_errstr(r));
    goto out;
  }
  res->module_reused = reused;
  if ((r = cu->cuModuleGetFunction(&f, mod, kernel))) {
    fail(res, ST_LAUNCH_ERROR, "kernel '%s' not found in the module: %s", kernel, cuda_errstr(r));
    goto out;
  }
  if (wk_symbols_fill(w, mod, 1, res->message, sizeof res->message)) { /* gpu_worker_symbols.c */
    res->status = ST_LAUNCH_ERROR;
    goto out;
  }
  res->regs = attr(w, f, CU_FUNC_ATTRIBUTE_NUM_REGS);
  res->smem_static = attr(w, f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  res->local_bytes = attr(w, f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  int fmax = attr(w, f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  unsigned threads = launch_threads(g);
  for (int d = 0; d < 3; d++) {
    if (g->block[d] == 0 || g->grid[d] == 0 || g->block[d] > (unsigned)w->max_block[d] ||
        g->grid[d] > (unsigned)w->max_grid[d]) {
      fail(res, ST_INVALID,
           "limit: launch geometry grid (%u,%u,%u) block (%u,%u,%u) is outside the device's limits "
           "(block up to %d,%d,%d; grid up to %d,%d,%d; no zero)",
           g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], w->max_block[0], w->max_block[1],
           w->max_block[2], w->max_grid[0], w->max_grid[1], w->max_grid[2]);
      goto out;
    }
  }
  if (fmax > 0 && threads > (unsigned)fmax) {
    fail(res, ST_INVALID,
         "limit: a block of %u threads exceeds this kernel's limit of %d threads per block "
         "(set by its registers (%d per thread) or __launch_bounds__)",
         threads, fmax, res->regs);
    goto out;
  }
  if (res->smem_static >= 0 && (long)res->smem_static + g->dyn_smem > (long)w->smem_optin) {
    fail(res, ST_INVALID, "limit: shared memory %d static + %u dynamic bytes exceeds the device's %d per block",
         res->smem_static, g->dyn_smem, w->smem_optin);
    goto out;
  }
  if ((r = wk_smem_optin(w, f, g))) {
    fail(res, ST_LAUNCH_ERROR, "allowing %u bytes of dynamic shared memory: %s", g->dyn_smem, cuda_errstr(r));
    goto out;
  }
  int blocks = 0;
  if (!cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, (int)threads, g->dyn_smem) && w->max_threads_sm > 0)
    res->occupancy = (double)blocks * threads / w->max_threads_sm;
  t_load = now_seconds();

  /* The check: one launch on poisoned outputs and restored inouts (after the reference, when
   * the configuration's own module holds it: gpu_worker_check.c), timed; the comparison of
   * every output with the reference; then the first estimate of one launch's time. Where the
   * check launch took a millisecond or more (a GEMM, a slow configuration), it is the estimate
   * (a module's first launch may start late, which is noise at that length) and no launch is
   * spent on it; shorter, an estimate launch of its own follows. */
  if (wk_reference_in(w, mod, job, res) || wk_seq_setup(w, mod, f, job, cubin, res)) goto out;
  CUevent ca = w->ev[2 * WK_MAX_CHUNK], cb = w->ev[2 * WK_MAX_CHUNK + 1];
  int flush = w->scratch && w->p->working_set < 2 * (size_t)w->info.l2_bytes;
  if ((r = wk_prepare_run(w)) || (r = cu->cuEventRecord(ca, w->stream))) {
    fail_run(w, res, r, "preparing the arguments");
    goto out;
  }
  if ((r = wk_launch(w, f, g))) {
    res->fatal = wk_context_dead(w, r);
    fail(res,
         res->fatal                                ? ST_RUNTIME_FAULT
         : r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ? ST_INVALID
                                                   : ST_LAUNCH_ERROR,
         "launch with grid (%u,%u,%u) block (%u,%u,%u) "
         "dynamic shared %u bytes: %s",
         g->grid[0], g->grid[1], g->grid[2], g->block[0], g->block[1], g->block[2], g->dyn_smem, cuda_errstr(r));
    goto out;
  }
  if ((r = cu->cuEventRecord(cb, w->stream)) || (r = cu->cuStreamSynchronize(w->stream))) {
    fail_run(w, res, r, "the kernel failed");
    goto out;
  }
  if (wk_compare(w, res)) goto out;
  float ms = 0;
  if ((r = cu->cuEventElapsedTime(&ms, ca, cb))) {
    fail_run(w, res, r, "timing");
    goto out;
  }
  est = ms;
  int est_launch = !(est >= WK_LONG_MS);
  if (est_launch) {
    if ((!flush && (r = cu->cuEventRecord(w->ev[0], w->stream))) || (r = enqueue_timed(w, f, g, flush, 1, 0)) ||
        (r = cu->cuEventSynchronize(w->ev[1])) || (r = cu->cuEventElapsedTime(&ms, w->ev[0], w->ev[1]))) {
      fail_run(w, res, r, "timing");
      goto out;
    }
    est = ms;
  }
  t_check = now_seconds();
  double best = job_best(w, job);
  wk_time(w, f, job, t0, est, !est_launch, gap_ms, best, res);
  t_timed = now_seconds();
  if (res->status == ST_OK && job->isolated_samples > 0 && isfinite(res->t_median) && !isfinite(res->t_raced) &&
      (!isfinite(best) || best <= 0 || res->t_median < 1.05 * best))
    wk_time_isolated(w, f, job, res);
  if (job->want_energy > 0 && res->status == ST_OK) wk_energy(w, f, job, res);
out:;
  /* the module stays loaded for the next job of the same image (gpu_worker_modules.c) */
  if (!res->fatal) wk_seq_release(w);
  double end = now_seconds();
  if (!t_load) t_load = end; /* the stage it ended in takes the rest of the time */
  if (!t_check) t_check = end;
  if (!t_timed) t_timed = end;
  res->load_ms = (t_load - t0) * 1e3;
  res->check_ms = (t_check - t_load) * 1e3;
  res->timing_ms = (t_timed - t_check) * 1e3;
  res->isolated_ms = (end - t_timed) * 1e3; /* the isolated pass (and the energy pass's window) */
  res->measure_ms = (end - t0) * 1e3;       /* the whole job */
  w->last_end = end;
}
