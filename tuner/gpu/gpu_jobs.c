/* gpu_jobs: the coordinator's problems and jobs on a GPU worker (see gpu.h; the worker process
 * is gpu.c's): a problem's setup frame, built once and kept to be replayed to a replacement
 * worker; jobs queued behind the one being measured (GPU_DEPTH) with their deadlines, sent
 * again to a replacement; a result turned into the record's fields. */
#include "gpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_int.h"

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
    if (g->pr.pid <= 0 && gpu_restart(g, err)) return -1;
    int died = 0;
    if (gpu_send_setup(g, slot, err, &died) == 0) {
      ps->have = 1;
      return 0;
    }
    /* The worker may be dying (the reference faulted): start clean, with the other problems of
     * the set (not this one); a failed restart is tried again by the next call. */
    cterr ignored;
    gpu_restart(g, &ignored);
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
      gpu_describe_death(g, 0, q->why, sizeof q->why);
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
  if (g->nq == 0 && g->pr.pid <= 0 && gpu_restart(g, err)) return -1;
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
    int r = gpu_recv_frame(g, &type, &p, q->deadline, err);
    if (r == 0 && type == MSG_RESULT && p.len == sizeof(wire_result)) {
      wire_result w;
      memcpy(&w, p.data, sizeof w);
      w.message[sizeof w.message - 1] = 0;
      fill_record(g, q->slot, &w, rec);
      restart = w.fatal;
    } else if (r == -2) {
      gpu_reap(g, 1, NULL, 0);
      rec->status = ST_TIMEOUT;
      char *m =
          xasprintf("no result within the time limit of %.1f s (a hung or very slow kernel); the GPU worker was killed",
                    q->wj.timeout_s);
      record_set_str(&rec->message, m);
      free(m);
      restart = 1;
    } else {
      if (r == -1) {
        gpu_describe_death(g, 0, why, sizeof why);
      } else { /* a malformed or unexpected frame: the worker cannot be trusted any more */
        snprintf(why, sizeof why, "GPU worker protocol: %.900s", r == -3 ? err->msg : "unexpected frame");
        gpu_reap(g, 1, NULL, 0);
      }
      rec->status = ST_RUNTIME_FAULT;
      record_set_str(&rec->message, why);
      restart = 1;
    }
    dbuf_free(&p);
  }
  if (restart && gpu_restart(g, err)) {
    g->nq = 0; /* the device is lost: the queued jobs come back to the caller unmeasured (gpu.h) */
    return -1;
  }
  pend_shift(g, restart);
  return 0;
}

int gpu_pending(const gpu *g) { return g->nq; }

int gpu_measure(gpu *g, const gpu_job *job, record *rec, cterr *err) {
  if (gpu_submit(g, job, err) != 0) return -1;
  return gpu_collect(g, rec, err);
}
