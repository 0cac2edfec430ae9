/* tune: the GPU path of `cutune run`. A strategy proposes configurations; the compile pool
 * compiles ahead of the GPU; one GPU worker checks and times each; every record goes to the
 * store the moment it exists. Configurations already in the store (same template and
 * options) are answered from it without measuring or charging the budget. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "report/progress.h"
#include "report/report.h"
#include "tune.h"
#include "store/store.h"
#include "search/strategy.h"

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

typedef struct ready_item {
  size_t cfg;
  compile_result cr;
} ready_item;

typedef struct tune_ctx {
  space *s;
  const run_opts *o;
  gpu *g;
  store *st;
  cpool *pool;
  const compile_source *src; /* the template and its includes, hashed once */
  const char *arch;
  char template_hash[33];
  char (*ohash)[33]; /* options hash of every configuration (provenance and resume key) */
  int jobs;          /* compile workers */
  const gpu_device_info *dev;
} tune_ctx;

/* Fill the device and provenance fields every record of this run carries. */
static void stamp(tune_ctx *t, record *r, const char *options_hash) {
  record_set_str(&r->template_hash, t->template_hash);
  record_set_str(&r->options_hash, options_hash);
  if (!r->device_name) record_set_str(&r->device_name, t->dev->name);
  if (!r->device_uuid) record_set_str(&r->device_uuid, t->dev->uuid);
  if (!r->device_cc) record_set_str(&r->device_cc, t->dev->cc);
  if (!r->driver_version) record_set_str(&r->driver_version, t->dev->driver);
}

/* The options hash of every configuration, once: it keys resume lookups, provenance and the
 * final report. */
static int hash_all_options(tune_ctx *t, cterr *err) {
  size_t n = configset_count(space_configs(t->s));
  t->ohash = xcalloc(n ? n : 1, sizeof *t->ohash);
  for (size_t i = 0; i < n; i++) {
    compile_job job;
    job_hold hold;
    if (job_make(t->s, t->src, i, t->arch, &job, &hold, err) != 0) return -1;
    job_options_hash(&job, t->ohash[i]);
    job_hold_free(&hold);
  }
  return 0;
}

static double record_value(const record *r) {
  return (r->status == ST_OK && isfinite(r->t_median)) ? r->t_median : INFINITY;
}

void tune_limits(size_t count, const run_opts *o, long *budget, double *time_limit, const char **sname,
                 const char **note) {
  *budget = o->budget > 0 ? o->budget : (long)count;
  *time_limit = o->time_limit;
  *note = "";
  int exh = o->strategy && !strcmp(o->strategy, "exhaustive");
  if (o->budget <= 0 && o->time_limit <= 0 && !exh && count > TUNE_EXHAUSTIVE_MAX) {
    /* too large to measure whole in minutes: a budgeted search by default */
    *budget = TUNE_DEFAULT_BUDGET;
    *time_limit = TUNE_DEFAULT_TIME;
    *note = " (default for a space this large: --budget " XSTR(TUNE_DEFAULT_BUDGET) " --time " XSTR(TUNE_DEFAULT_TIME) ")";
  } else if (o->budget <= 0 && o->time_limit <= 0)
    *note = " (the whole space)";
  /* only --time on a large space: it will not be covered, so search rather than walk it in order */
  long cover = o->budget <= 0 && *time_limit > 0 && count > TUNE_EXHAUSTIVE_MAX ? -1 : *budget;
  *sname = o->strategy ? o->strategy : strategy_default_name(count, cover);
}

/* What one problem's loop keeps between configurations. */
typedef struct tune_tally {
  strategy *strat;
  progress *pg;
  long charged;
  size_t failed;
  double best;
  int flops; /* the space gives flops: progress in TFLOP/s */
} tune_tally;

/* A finished record: to the store (fsync'd), to the strategy, to the display. Frees rec. */
static int finish_record(tune_ctx *t, tune_tally *ty, size_t cfg, record *rec, size_t *n_measured, cterr *err) {
  int rc = store_append(t->st, rec, err);
  if (rc == 0) {
    (*n_measured)++;
    ty->charged++;
    strategy_tell(ty->strat, cfg, record_value(rec));
    if (rec->status != ST_OK) ty->failed++;
    if (t->o->verbose)
      progress_log(ty->pg, "%-40s %-13s %s", rec->config, rec_status_name(rec->status),
                   rec->status == ST_OK ? "" : (rec->message ? rec->message : ""));
    progress_step(ty->pg, rec->status != ST_OK, rec->t_median, ty->flops ? rec->gflops : rec->gbps, rec->config);
  }
  record_free(rec);
  return rc;
}

static void note_best(tune_tally *ty, const record *r) {
  if (r->status == ST_OK && isfinite(r->t_median) && (isnan(ty->best) || r->t_median < ty->best)) ty->best = r->t_median;
}

/* Tune one problem. Three stages run at once: the strategy proposes into the compile pool
 * (up to `window` configurations ahead), the GPU worker measures one configuration, and the
 * coordinator records the one before it (store append with fsync, strategy, display) while
 * the worker is busy. */
static int tune_problem(tune_ctx *t, int prob, size_t *n_measured, cterr *err) {
  const configset *cs = space_configs(t->s);
  size_t count = configset_count(cs);
  long budget;
  double time_limit;
  const char *sname, *dflt;
  tune_limits(count, t->o, &budget, &time_limit, &sname, &dflt);
  tune_tally ty = {.best = NAN};
  strategy_opts sopts;
  strategy_opts_default(&sopts);
  sopts.budget_hint = budget < (long)count ? budget : (long)count;
  if (strategy_new(sname, cs, t->o->seed, &sopts, &ty.strat, err) != 0) return -1;

  int window = 2 * t->jobs + 4;
  ready_item *ready = xcalloc((size_t)window + 1, sizeof(ready_item));
  int nready = 0, inflight = 0, exhausted = 0, rc = -1, gpu_busy = 0;
  size_t resumed = 0, pend_cfg = 0;
  record pend;
  record_init(&pend);
  double t0 = now_seconds();
  const char *pkey = space_problem_key(t->s, prob);
  ty.pg = progress_new(stderr, pkey, (size_t)(budget < (long)count ? budget : (long)count),
                       t->o->quiet ? 0 : t->o->progress_tty);
  progress_set_quiet(ty.pg, t->o->quiet);
  cterr ferr;
  double fl = space_flops(t->s, prob, &ferr);
  ty.flops = isfinite(fl) && fl > 0;
  if (ty.flops) progress_show_tflops(ty.pg);
  if (!t->o->quiet) fprintf(stderr, "problem %s: %zu configurations, strategy %s%s\n", pkey, count, sname, dflt);

  for (;;) {
    int out_of_time = time_limit > 0 && now_seconds() - t0 > time_limit;
    int stop = interrupted || out_of_time || ty.charged >= budget;
    /* propose while there is room in the pipeline and budget left for it */
    while (!stop && !exhausted && inflight + nready < window && ty.charged + inflight + nready + gpu_busy < budget) {
      size_t idx;
      if (strategy_ask(ty.strat, &idx, 1) != 1) {
        exhausted = 1;
        break;
      }
      char *key = configset_row_key(cs, configset_row(cs, idx));
      const record *have = store_find(t->st, key, pkey, t->template_hash, t->ohash[idx]);
      free(key);
      if (have) { /* measured before: answered from the store, not charged */
        strategy_tell(ty.strat, idx, record_value(have));
        note_best(&ty, have);
        resumed++;
        progress_skip(ty.pg, 1);
        continue;
      }
      compile_job job;
      job_hold hold;
      if (job_make(t->s, t->src, idx, t->arch, &job, &hold, err) != 0) goto done;
      int sr = cpool_submit(t->pool, idx, &job, err);
      job_hold_free(&hold);
      if (sr != 0) goto done;
      inflight++;
    }
    if (!gpu_busy && (stop || (exhausted && inflight == 0 && nready == 0))) break;

    /* collect finished compiles: wait only when the GPU has nothing to do */
    while (inflight > 0 && nready < window) {
      uint64_t tag;
      compile_result cr;
      int w = cpool_wait(t->pool, &tag, &cr, (nready || gpu_busy) ? 0 : 500, err);
      if (w < 0) goto done;
      if (w == 0) break;
      inflight--;
      ready[nready].cfg = (size_t)tag;
      ready[nready].cr = cr;
      nready++;
    }

    /* the result of the configuration on the GPU */
    record done_rec;
    size_t done_cfg = 0;
    int have_done = 0;
    if (gpu_busy) {
      gpu_busy = 0;
      if (gpu_collect(t->g, &pend, err) != 0) goto done; /* pend was stamped before submit */
      done_rec = pend, done_cfg = pend_cfg, have_done = 1;
      record_init(&pend);
      note_best(&ty, &done_rec);
    }

    /* start the next measurement before recording the last one */
    while (!stop && nready > 0 && !gpu_busy) {
      ready_item it = ready[0];
      memmove(ready, ready + 1, (size_t)(nready - 1) * sizeof(ready_item));
      nready--;
      record rec;
      job_record_base(t->s, it.cfg, prob, t->arch, &it.cr, &rec);
      stamp(t, &rec, t->ohash[it.cfg]);
      gpu_job job = {0};
      if (rec.status == ST_OK && space_geometry(t->s, it.cfg, prob, &job.geom, err) == 0) {
        job.cubin = it.cr.cubin.data;
        job.cubin_len = it.cr.cubin.len;
        job.kernel = space_kernel(t->s);
        job.timeout_s = space_timeout(t->s);
        job.best_ms = ty.best;
        job.min_samples = t->o->min_samples;
        job.max_samples = t->o->max_samples;
        job.target_rse = t->o->rse;
        job.want_energy = 0; /* time first; energy in a pass of its own (energy_pass) */
        job.isolated_samples = 21; /* contenders only: see gpu_job */
        int sr = gpu_submit(t->g, &job, err);
        compile_result_free(&it.cr);
        if (sr != 0) {
          record_free(&rec);
          if (have_done) record_free(&done_rec);
          goto done;
        }
        pend = rec, pend_cfg = it.cfg, gpu_busy = 1;
      } else { /* compile error or invalid geometry: a record without the GPU */
        compile_result_free(&it.cr);
        if (finish_record(t, &ty, it.cfg, &rec, n_measured, err) != 0) {
          if (have_done) record_free(&done_rec);
          goto done;
        }
      }
    }
    if (have_done && finish_record(t, &ty, done_cfg, &done_rec, n_measured, err) != 0) goto done;
  }
  rc = 0;
done:
  if (gpu_busy) { /* an error elsewhere: let the worker finish, so the next problem finds it idle */
    cterr e2;
    gpu_collect(t->g, &pend, &e2);
  }
  record_free(&pend);
  progress_finish(ty.pg);
  progress_free(ty.pg);
  /* drain what is still compiling so the next problem starts clean */
  for (int i = 0; i < nready; i++) compile_result_free(&ready[i].cr);
  while (inflight > 0) {
    uint64_t tag;
    compile_result cr;
    cterr e2;
    if (cpool_wait(t->pool, &tag, &cr, -1, &e2) != 1) break;
    compile_result_free(&cr);
    inflight--;
  }
  free(ready);
  strategy_free(ty.strat);
  if (rc == 0 && !t->o->quiet)
    fprintf(stderr, "problem %s: %ld measured (%zu failed), %zu answered from the store, %.1f s\n", pkey, ty.charged,
            ty.failed, resumed, now_seconds() - t0);
  return rc;
}

#define ENERGY_WINDOW_MS 500 /* per configuration (twice that where L2 is flushed) */

static int cmp_time(const void *a, const void *b) {
  const record *x = *(const record *const *)a, *y = *(const record *const *)b;
  return (x->t_median > y->t_median) - (x->t_median < y->t_median);
}

static int space_wants_energy(const space *s) {
  for (int i = 0; i < space_nobjectives(s); i++)
    if (!strcmp(space_objective(s, i), "energy")) return 1;
  return 0;
}

/* The energy objective's second pass: the configurations near the time front (the
 * --energy-top fastest, within --energy-within of the best time) are measured again with an
 * energy window of ENERGY_WINDOW_MS, and the new record (time and energy) is appended: the
 * newest record of a configuration is the one the store answers with. Configurations whose
 * newest record has an energy figure are not measured again. */
static int energy_pass(tune_ctx *t, int prob, size_t *n_measured, cterr *err) {
  const char *pkey = space_problem_key(t->s, prob);
  const configset *cs = space_configs(t->s);
  size_t n = configset_count(cs), k = 0, done = 0, measured = 0;
  const record **view = xcalloc(n ? n : 1, sizeof(record *));
  size_t *cfg_of = xcalloc(n ? n : 1, sizeof(size_t));
  int rc = -1;
  for (size_t i = 0; i < n; i++) {
    char *key = configset_row_key(cs, configset_row(cs, i));
    const record *r = store_find(t->st, key, pkey, t->template_hash, t->ohash[i]);
    free(key);
    if (r && r->status == ST_OK && isfinite(r->t_median)) view[k++] = r;
  }
  qsort(view, k, sizeof *view, cmp_time);
  size_t want = 0;
  while (want < k && want < (size_t)t->o->energy_top && view[want]->t_median <= view[0]->t_median * (1 + t->o->energy_within))
    want++;
  /* configuration indices before anything is appended (appending may move the store's records) */
  for (size_t j = 0; j < want; j++) {
    uint16_t row[CS_MAX_PARAMS];
    int found = view[j]->nparams == configset_nparams(cs);
    for (int p = 0; p < configset_nparams(cs) && found; p++) {
      const cs_param *pp = configset_param(cs, p);
      found = 0;
      for (int v = 0; v < pp->nvalues && !found; v++)
        if (!strcmp(pp->str[v], view[j]->pvalue[p])) row[p] = (uint16_t)v, found = 1;
    }
    long ci = found ? configset_find(cs, row) : -1;
    cfg_of[j] = ci < 0 ? (size_t)-1 : (size_t)ci;
    if (isfinite(view[j]->energy_mj)) cfg_of[j] = (size_t)-1, done++;
  }
  if (!t->o->quiet)
    fprintf(stderr, "problem %s: energy pass over %zu configurations within %.0f %% of the best time (%zu have a figure)\n",
            pkey, want, 100 * t->o->energy_within, done);
  for (size_t j = 0; j < want && !interrupted; j++) {
    if (cfg_of[j] == (size_t)-1) continue;
    compile_job job;
    job_hold hold;
    if (job_make(t->s, t->src, cfg_of[j], t->arch, &job, &hold, err) != 0) goto done;
    int sr = cpool_submit(t->pool, cfg_of[j], &job, err);
    job_hold_free(&hold);
    uint64_t tag;
    compile_result cr;
    if (sr != 0 || cpool_wait(t->pool, &tag, &cr, -1, err) != 1) goto done;
    record rec;
    job_record_base(t->s, cfg_of[j], prob, t->arch, &cr, &rec);
    stamp(t, &rec, t->ohash[cfg_of[j]]);
    gpu_job gj = {0};
    int compiled = rec.status == ST_OK;
    if (!compiled || space_geometry(t->s, cfg_of[j], prob, &gj.geom, err) != 0) {
      compile_result_free(&cr);
      record_free(&rec);
      if (compiled) goto done; /* the geometry failed: it did not in the time pass */
      continue;
    }
    gj.cubin = cr.cubin.data, gj.cubin_len = cr.cubin.len;
    gj.kernel = space_kernel(t->s);
    gj.timeout_s = space_timeout(t->s) + 3.0 * ENERGY_WINDOW_MS / 1000.0;
    gj.best_ms = NAN; /* no early stop: these are all contenders */
    gj.min_samples = t->o->min_samples, gj.max_samples = t->o->max_samples, gj.target_rse = t->o->rse;
    gj.want_energy = ENERGY_WINDOW_MS;
    char ebuf[64];
    int gr = gpu_submit(t->g, &gj, err) != 0 ? -1 : gpu_collect(t->g, &rec, err);
    compile_result_free(&cr);
    if (gr == 0) gr = store_append(t->st, &rec, err);
    if (gr == 0 && !t->o->quiet)
      fprintf(stderr, "  %-60s %.4f ms  %s\n", rec.config, rec.t_median,
              isfinite(rec.energy_mj) ? (snprintf(ebuf, sizeof ebuf, "%.4g mJ per launch", rec.energy_mj), ebuf)
                                      : rec.message && *rec.message ? rec.message : "no energy figure");
    record_free(&rec);
    if (gr != 0) goto done;
    measured++;
  }
  *n_measured += measured;
  rc = 0;
done:
  free(view), free(cfg_of);
  return rc;
}

/* The final tables of one problem from the store: newest record per configuration measured
 * with this template. */
static void report_problem(tune_ctx *t, int prob, run_outcome *out) {
  const char *pkey = space_problem_key(t->s, prob);
  const configset *cs = space_configs(t->s);
  size_t n = configset_count(cs), k = 0;
  const record **view = xcalloc(n ? n : 1, sizeof(record *));
  for (size_t i = 0; i < n; i++) {
    char *key = configset_row_key(cs, configset_row(cs, i));
    const record *r = store_find(t->st, key, pkey, t->template_hash, t->ohash[i]);
    free(key);
    if (r) view[k++] = r;
    if (r) out->configs++, out->failed += r->status != ST_OK;
  }
  printf("\n== %s, problem %s: %zu of %zu configurations measured on %s ==\n", space_name(t->s), pkey, k, n,
         t->dev->name);
  report_best(stdout, view, k, pkey, t->o->top, gpu_copy_gbps(t->g));
  printf("\nwhich parameters made the difference (best time per value):\n");
  report_param_effects(stdout, view, k, pkey);
  free(view);
}

int run_tune(space *s, const run_opts *o, const char *self_exe, run_outcome *out, cterr *err) {
  tune_ctx t = {.s = s, .o = o};
  dbuf warn;
  dbuf_init(&warn);
  compile_source src;
  compile_source_init(&src);
  compile_result refc;
  compile_result_init(&refc);
  char *spath = NULL;
  int rc = -1;
  size_t measured = 0;
  double t0 = now_seconds();
  struct sigaction sa = {0}, old_int, old_term;
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  if (gpu_start(&t.g, self_exe, o->device, err) != 0) goto done;
  t.dev = gpu_info(t.g);
  t.arch = o->arch ? o->arch : t.dev->arch;
  if (o->arch && strcmp(o->arch, t.dev->arch) != 0) {
    cterr_set(err, "--arch %s does not match the device (%s is %s); leave --arch out to tune on it", o->arch,
              t.dev->name, t.dev->arch);
    goto done;
  }
  if (job_load_source(s, &src, err) != 0) goto done;
  t.src = &src;
  /* the template and every file it includes: a header edit re-measures */
  memcpy(t.template_hash, src.digest, 32);
  t.template_hash[32] = 0;

  spath = store_path_for(o->results_dir, t.dev->name, space_name(s));
  if (store_open(spath, &t.st, &warn, err) != 0) goto done;
  if (warn.len) fprintf(stderr, "%s", warn.data);

  if (hash_all_options(&t, err) != 0) goto done;
  if (job_open_pool(o, self_exe, &t.pool, &t.jobs, err) != 0) goto done;
  if (job_compile_reference(s, t.arch, t.pool, &refc, err) != 0) goto done;

  if (!o->quiet)
    fprintf(stderr, "%s (%s, %d SMs, %.0f MiB L2): device-to-device copy %.0f GB/s\n"
                    "%s: %zu valid configurations of %.0f; records in %s\n",
            t.dev->name, t.dev->arch, t.dev->sms, t.dev->l2_bytes / 1048576.0, t.dev->copy_gbps, space_path(s),
            configset_count(space_configs(s)), configset_raw_size(space_configs(s)), spath);

  for (int prob = 0; prob < space_nproblems(s) && !interrupted; prob++) {
    if (!job_problem_selected(s, o, prob)) continue;
    gpu_problem gp = {0};
    if (space_args(s, prob, gp.args, &gp.nargs, err) != 0) goto done;
    gp.seed = o->seed;
    gp.tolerance = space_tolerance(s);
    gp.ref_cubin = refc.cubin.data;
    gp.ref_cubin_len = refc.cubin.len;
    gp.ref_kernel = space_ref_kernel(s);
    if (space_ref_geometry(s, prob, &gp.ref_geom, err) != 0) goto done;
    gp.bytes = space_bytes(s, prob, err);
    gp.flops = space_flops(s, prob, err);
    if (gpu_setup(t.g, &gp, err) != 0) {
      cterr_wrap(err, "problem %s", space_problem_key(s, prob));
      goto done;
    }
    if (!o->quiet && gpu_setup_deaths(t.g) > 0)
      fprintf(stderr, "problem %s: %d GPU worker%s died in the setup and %s replaced\n", space_problem_key(s, prob),
              gpu_setup_deaths(t.g), gpu_setup_deaths(t.g) == 1 ? "" : "s", gpu_setup_deaths(t.g) == 1 ? "was" : "were");
    if (!o->quiet)
      fprintf(stderr, "problem %s: device-to-device copy of the same bytes %.0f GB/s (the %% copy reference)\n",
              space_problem_key(s, prob), gpu_copy_gbps(t.g));
    if (tune_problem(&t, prob, &measured, err) != 0) goto done;
    if (space_wants_energy(s) && !interrupted && energy_pass(&t, prob, &measured, err) != 0) goto done;
    report_problem(&t, prob, out);
  }
  double dt = now_seconds() - t0;
  printf("\n%zu configurations measured in %.1f s (%.1f per second end to end); records in %s\n", measured, dt,
         dt > 0 ? measured / dt : 0.0, spath);
  if (interrupted) printf("interrupted: every finished measurement is in the store; run the same command to resume\n");
  out->interrupted = interrupted != 0;
  rc = 0;
done:
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  compile_result_free(&refc);
  cpool_free(t.pool);
  store_close(t.st);
  gpu_stop(t.g);
  free(spath), free(t.ohash);
  compile_source_free(&src);
  dbuf_free(&warn);
  return rc;
}
