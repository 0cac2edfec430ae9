/* compile_only: `cutune run` without a GPU — compile every configuration for one
 * architecture through the pool and report resources and theoretical occupancy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/progress.h"
#include "report/report.h"
#include "compile_only.h"

int run_compile_only(space *s, const run_opts *o, const char *self_exe, const char *why_no_gpu, cterr *err) {
  const char *arch = o->arch ? o->arch : "sm_90";
  const configset *cs = space_configs(s);
  size_t n = configset_count(cs);
  compile_source src;
  compile_source_init(&src);
  cpool *pool = NULL;
  record *recs = NULL;
  const record **view = NULL;
  int rc = -1;
  progress *pg = NULL;

  if (job_load_source(s, &src, err) != 0) goto done;
  int jobs;
  if (job_open_pool(o, self_exe, &pool, &jobs, err) != 0) goto done;

  int prob = 0;
  if (!o->quiet)
    printf("%s: %zu valid configurations of %.0f (enumerated in %.3f s); compiling for %s with %d worker%s\n",
           space_path(s), n, configset_raw_size(cs), space_enumerate_seconds(s), arch, jobs, jobs == 1 ? "" : "s");
  double t0 = now_seconds();
  for (size_t i = 0; i < n; i++) {
    compile_job job;
    job_hold hold;
    if (job_make(s, &src, i, arch, &job, &hold, err) != 0) goto done;
    int sr = cpool_submit(pool, (uint64_t)i, &job, err);
    job_hold_free(&hold);
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
    job_record_base(s, (size_t)tag, prob, arch, &cr, &recs[tag]);
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
  compile_source_free(&src);
  return rc;
}
