/* job: what the compile-only and GPU paths of `cutune run` share — the compile job of a
 * configuration, its options hash, the record it starts from, problem selection and the compile
 * pool the options ask for. See job.h. */
#include "job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int job_problem_selected(const space *s, const run_opts *o, int prob) {
  if (!o->problem) return 1;
  char idx[16];
  snprintf(idx, sizeof idx, "%d", prob);
  return !strcmp(o->problem, idx) || !strcmp(o->problem, space_problem_key(s, prob));
}

int job_open_pool(const run_opts *o, const char *self_exe, cpool **pool, int *jobs, cterr *err) {
  char *cache = o->no_cache ? NULL : o->cache_dir ? xstrdup(o->cache_dir) : compile_cache_default_dir();
  int n = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  int rc = cpool_new(pool, self_exe, n, cache, err);
  free(cache);
  if (rc == 0 && o->compile_timeout > 0) cpool_set_timeout(*pool, o->compile_timeout);
  if (jobs) *jobs = n;
  return rc;
}

int job_load_source(const space *s, compile_source *src, cterr *err) {
  const char *opts[COMPILE_MAX_OPTS];
  int n = space_noptions(s);
  if (n > COMPILE_MAX_OPTS) n = COMPILE_MAX_OPTS; /* job_make refuses more */
  for (int i = 0; i < n; i++) opts[i] = space_option(s, i);
  return compile_source_load(src, space_template_path(s), n, opts, err);
}

int job_make(const space *s, const compile_source *src, size_t cfg, const char *arch, compile_job *job,
             job_hold *hold, cterr *err) {
  const configset *cs = space_configs(s);
  const uint16_t *row = configset_row(cs, cfg);
  memset(job, 0, sizeof *job);
  hold->n = 0;
  int np = configset_nparams(cs);
  if (np + space_noptions(s) > COMPILE_MAX_OPTS)
    return cterr_set(err, "%s: too many parameters and options (%d, at most %d)", space_path(s),
                     np + space_noptions(s), COMPILE_MAX_OPTS);
  for (int p = 0; p < np; p++) {
    const cs_param *pp = configset_param(cs, p);
    hold->opts[hold->n++] = xasprintf("-D%s=%s", pp->name, pp->str[row[p]]);
  }
  for (int i = 0; i < space_noptions(s); i++) hold->opts[hold->n++] = xstrdup(space_option(s, i));
  job->src_path = space_template_path(s);
  job->src = src->text.data ? src->text.data : "";
  job->src_digest = src->digest;
  job->kernel = space_kernel(s);
  job->arch = arch;
  job->nopts = hold->n;
  for (int i = 0; i < hold->n; i++) job->opts[i] = hold->opts[i];
  return 0;
}

void job_hold_free(job_hold *h) {
  for (int i = 0; i < h->n; i++) free(h->opts[i]);
  h->n = 0;
}

void job_options_hash(const compile_job *job, char out[33]) {
  sha256_ctx c;
  uint8_t dg[32];
  sha256_init(&c);
  for (int i = 0; i < job->nopts; i++) sha256_update(&c, job->opts[i], strlen(job->opts[i]) + 1);
  sha256_update(&c, job->arch, strlen(job->arch) + 1);
  sha256_update(&c, job->kernel, strlen(job->kernel) + 1);
  sha256_final(&c, dg);
  hex_encode(dg, 16, out);
}

void job_record_base(space *s, size_t cfg, int prob, const char *arch, const compile_result *cr,
                     record *rec) {
  const configset *cs = space_configs(s);
  const uint16_t *row = configset_row(cs, cfg);
  record_init(rec);
  rec->space = xstrdup(space_name(s));
  rec->config = configset_row_key(cs, row);
  rec->problem = xstrdup(space_problem_key(s, prob));
  rec->nparams = configset_nparams(cs);
  for (int p = 0; p < rec->nparams && p < REC_MAX_PARAMS; p++) {
    const cs_param *pp = configset_param(cs, p);
    rec->pname[p] = xstrdup(pp->name);
    rec->pvalue[p] = xstrdup(pp->str[row[p]]);
  }
  rec->arch = xstrdup(arch);
  rec->nvrtc_version = xstrdup(compile_nvrtc_version());
  rec->timestamp = iso8601_now();
  rec->message = xstrdup("");
  if (!cr) return;
  rec->status = cr->ok ? ST_OK : cr->lost ? ST_WORKER_LOST : cr->timed_out ? ST_COMPILE_TIMEOUT : ST_COMPILE_ERROR;
  if (!cr->ok) record_set_str(&rec->message, cr->message ? cr->message : "compile error");
  rec->regs = cr->res.regs;
  rec->smem_static = cr->res.smem_static;
  rec->local_bytes = cr->res.local_bytes;
  rec->spill_stores = cr->res.spill_stores;
  rec->spill_loads = cr->res.spill_loads;
  rec->compile_ms = cr->compile_ms;

  launch_geom g;
  cterr gerr;
  if (space_geometry(s, cfg, prob, &g, &gerr) != 0) {
    if (cr->ok) {
      rec->status = ST_INVALID;
      record_set_str(&rec->message, gerr.msg);
    }
    return;
  }
  rec->block_threads = (int)launch_threads(&g);
  rec->smem_dynamic = (int)g.dyn_smem;
  if (cr->ok && rec->regs >= 0) {
    occupancy_info oi;
    int smem = (rec->smem_static > 0 ? rec->smem_static : 0) + (int)g.dyn_smem;
    if (occupancy_theoretical(arch, rec->block_threads, rec->regs, smem, &oi, &gerr) == 0) {
      rec->occupancy = oi.occupancy;
      record_set_str(&rec->limiter, oi.limiter);
      if (oi.blocks_per_sm == 0) {
        rec->status = ST_INVALID;
        record_set_str(&rec->message, "does not fit on a multiprocessor (occupancy 0)");
      }
    }
  }
}
