/* compile_only: `cutune run` without a GPU — compile every configuration for one
 * architecture through the pool and report resources and theoretical occupancy. With
 * --budget N below the space's size, a seeded random sample of N configurations (--seed)
 * instead of the whole space: how a test checks that a large space compiles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/progress.h"
#include "report/report.h"
#include "compile_only.h"
#include "search/strategy.h"

int run_compile_only(space *s, const run_opts *o, const char *self_exe, const char *why_no_gpu, cterr *err) {
  const char *arch = o->arch ? o->arch : "sm_90";
  const configset *cs = space_configs(s);
  size_t n = configset_count(cs);
  dbuf src;
  dbuf_init(&src);
  cpool *pool = NULL;
  record *recs = NULL;
  const record **view = NULL;
  size_t *pick = NULL, npick = n;
  strategy *sample = NULL;
  int rc = -1;
  progress *pg = NULL;

  if (file_read(space_template_path(s), &src, err) != 0) goto done;
  int jobs;
  if (job_open_pool(o, self_exe, &pool, &jobs, err) != 0) goto done;

  int prob = 0;
  pick = xcalloc(n ? n : 1, sizeof *pick);
  if (o->budget > 0 && (size_t)o->budget < n) { /* a seeded random sample, in index order */
    if (strategy_new("random", cs, o->seed, NULL, &sample, err) != 0) goto done;
    npick = (size_t)strategy_ask(sample, pick, (int)o->budget);
    char *mark = xcalloc(n, 1);
    for (size_t i = 0; i < npick; i++) mark[pick[i]] = 1;
    npick = 0;
    for (size_t i = 0; i < n; i++)
      if (mark[i]) pick[npick++] = i;
    free(mark);
  } else
    for (size_t i = 0; i < n; i++) pick[i] = i;
  if (!o->quiet)
    printf("%s: %zu valid configurations of %.0f (enumerated in %.3f s); compiling %s%zu for %s with %d worker%s\n",
           space_path(s), n, configset_raw_size(cs), space_enumerate_seconds(s), npick < n ? "a random sample of " : "",
           npick, arch, jobs, jobs == 1 ? "" : "s");
  double t0 = now_seconds();
  for (size_t k = 0; k < npick; k++) {
    size_t i = pick[k];
    compile_job job;
    job_hold hold;
    if (job_make(s, src.data, i, arch, &job, &hold, err) != 0) goto done;
    int sr = cpool_submit(pool, (uint64_t)i, &job, err);
    job_hold_free(&hold);
    if (sr != 0) goto done;
  }
  recs = xcalloc(n, sizeof(record));
  view = xcalloc(n, sizeof(record *));
  pg = progress_new(stderr, "compile", npick, o->quiet ? 0 : o->progress_tty);
  size_t got = 0, failed = 0, cached = 0;
  while (got < npick) {
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
  size_t nv = 0; /* the compiled ones, in index order */
  for (size_t i = 0; i < n; i++)
    if (view[i]) view[nv++] = view[i];
  report_resources(stdout, view, nv);
  /* the whole compiler message of each failure (the table shows its first line) */
  size_t shown = 0;
  for (size_t i = 0; i < nv; i++) {
    if (view[i]->status != ST_COMPILE_ERROR) continue;
    if (shown++ == 20) {
      printf("(%zu more compile errors; -v lists every one as it happens)\n", failed - 20);
      break;
    }
    printf("\n%s: %s\n", view[i]->config, view[i]->message);
  }
  printf("\n%zu configurations for %s in %.2f s: %zu compiled, %zu from the cache, %zu failed%s\n", npick, arch, dt,
         npick - cached, cached, failed, failed ? " (see the table; failed configurations are reported, not fatal)" : "");
  printf("%s: timing needs a GPU. Run this command on a machine with a CUDA device to measure;\n"
         "nothing was written to %s/.\n", why_no_gpu, o->results_dir);
  rc = 0;
done:
  if (recs)
    for (size_t i = 0; i < n; i++) record_free(&recs[i]);
  free(recs), free(view), free(pick);
  strategy_free(sample);
  progress_free(pg);
  cpool_free(pool);
  dbuf_free(&src);
  return rc;
}
