/* compile_only: `cutune run` without a GPU — compile every configuration for one
 * architecture through the pool and report resources and theoretical occupancy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/progress.h"
#include "report/report.h"
#include "run.h"

void run_record_base(space *s, size_t cfg, int prob, const char *arch, const compile_result *cr,
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
  rec->status = cr->ok ? ST_OK : ST_COMPILE_ERROR;
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

int run_compile_only(space *s, const run_opts *o, const char *self_exe, const char *why_no_gpu, cterr *err) {
  const char *arch = o->arch ? o->arch : "sm_90";
  const configset *cs = space_configs(s);
  size_t n = configset_count(cs);
  dbuf src;
  dbuf_init(&src);
  cpool *pool = NULL;
  record *recs = NULL;
  const record **view = NULL;
  int rc = -1;
  progress *pg = NULL;

  if (file_read(space_template_path(s), &src, err) != 0) goto done;
  int jobs;
  if (run_open_pool(o, self_exe, &pool, &jobs, err) != 0) goto done;

  int prob = 0;
  if (!o->quiet)
    printf("%s: %zu valid configurations of %.0f (enumerated in %.3f s); compiling for %s with %d worker%s\n",
           space_path(s), n, configset_raw_size(cs), space_enumerate_seconds(s), arch, jobs, jobs == 1 ? "" : "s");
  double t0 = now_seconds();
  for (size_t i = 0; i < n; i++) {
    compile_job job;
    run_job_hold hold;
    if (run_make_job(s, src.data, i, arch, &job, &hold, err) != 0) goto done;
    int sr = cpool_submit(pool, (uint64_t)i, &job, err);
    run_job_hold_free(&hold);
    if (sr != 0) goto done;
  }
  recs = xcalloc(n, sizeof(record));
  view = xcalloc(n, sizeof(record *));
  pg = progress_new(stderr, "compile", n, o->quiet ? 0 : o->progress_tty);
  size_t got = 0, failed = 0, cached = 0;
  while (got < n) {
    uint64_t tag;
    compile_result cr;
    int w = cpool_wait(pool, &tag, &cr, -1, err);
    if (w < 0) goto done;
    if (w == 0) continue;
    run_record_base(s, (size_t)tag, prob, arch, &cr, &recs[tag]);
    view[tag] = &recs[tag];
    if (cr.cached) cached++;
    if (recs[tag].status != ST_OK) failed++;
    if (o->verbose && recs[tag].status != ST_OK)
      progress_log(pg, "%s: %s", recs[tag].config, recs[tag].message);
    progress_step(pg, recs[tag].status != ST_OK, NAN, NAN, NULL);
    compile_result_free(&cr);
    got++;
  }
  double dt = now_seconds() - t0;
  progress_finish(pg);
  report_resources(stdout, view, n);
  /* the whole compiler message of each failure (the table shows its first line) */
  size_t shown = 0;
  for (size_t i = 0; i < n; i++) {
    if (!view[i] || view[i]->status != ST_COMPILE_ERROR) continue;
    if (shown++ == 20) {
      printf("(%zu more compile errors; -v lists every one as it happens)\n", failed - 20);
      break;
    }
    printf("\n%s: %s\n", view[i]->config, view[i]->message);
  }
  printf("\n%zu configurations for %s in %.2f s: %zu compiled, %zu from the cache, %zu failed%s\n", n, arch, dt,
         n - cached, cached, failed, failed ? " (see the table; failed configurations are reported, not fatal)" : "");
  printf("%s: timing needs a GPU. Run this command on a machine with a CUDA device to measure;\n"
         "nothing was written to %s/.\n", why_no_gpu, o->results_dir);
  rc = 0;
done:
  if (recs)
    for (size_t i = 0; i < n; i++) record_free(&recs[i]);
  free(recs), free(view);
  progress_free(pg);
  cpool_free(pool);
  dbuf_free(&src);
  return rc;
}
