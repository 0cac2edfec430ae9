/* measure_one: see measure_one.h. */
#include "measure_one.h"

#include <stdlib.h>

#include "job.h"

int measure_one(const char *space_path, const char *config, const char *problem, const measure_one_opts *o, record *rec,
                cterr *err) {
  space *s = NULL;
  gpu *g = NULL;
  compile_result refc, cr;
  compile_result_init(&refc), compile_result_init(&cr);
  compile_source src; /* the template and its includes (the compile-cache key covers both) */
  compile_source_init(&src);
  job_hold hold = {0};
  record_init(rec);
  char *self = self_exe_path();
  int rc = -1;
  trace_mark("measure one: %s %s", space_path, config); /* the trace's clock starts before the worker's */
  if (space_load(space_path, &s, err) != 0) goto done;
  long cfg = job_find_config(s, config, err);
  if (cfg < 0) goto done;
  int prob = job_find_problem(s, problem, err);
  if (prob < 0) goto done;
  if (!self) {
    cterr_set(err, "cannot find this executable (/proc/self/exe)");
    goto done;
  }
  /* the reference compiled while the worker finishes its start (gpu.h: gpu_start_all_begin) */
  if (gpu_start_all_begin(&g, self, &o->device, 1, err) != 0) goto done;
  const char *arch = gpu_info(g)->arch;
  if (job_load_source(s, &src, err) != 0) goto done;
  if (job_compile_reference(s, arch, NULL, &refc, err) != 0) goto done;
  trace_mark("reference compiled");
  if (gpu_start_all_end(&g, 1, err) != 0) goto done;
  compile_job job;
  if (job_make(s, &src, (size_t)cfg, arch, &job, &hold, err) != 0) goto done;
  if (hold.unfit[0]) {
    cterr_set(err, "%s: configuration %ld %s (the space's arch)", space_path, cfg, hold.unfit);
    goto done;
  }
  if (hold.failed) { /* the space's generator could not make its program */
    cterr_set(err, "%s", hold.failed);
    goto done;
  }
  job.lineinfo = 1; /* the profilers map SASS back to the template's lines (its own cache entry) */
  if (job_compile_cached(&job, &cr, err) != 0) goto done;
  gpu_job gj = {0};
  job_record_base(s, (size_t)cfg, prob, arch, &cr, rec, &gj);
  if (rec->status == ST_OK) {
    gpu_problem gp;
    if (job_problem(s, prob, 1, &refc, &gp, err) != 0) goto done;
    compile_result chk, ini; /* the space's own check kernel and init launches, if it has them */
    compile_result_init(&ini);
    if (job_compile_check(s, arch, NULL, &chk, err) != 0 || job_compile_init(s, arch, NULL, &ini, err) != 0) {
      compile_result_free(&chk), compile_result_free(&ini);
      goto done;
    }
    job_problem_check(s, &chk, &gp);
    job_problem_init(s, prob, &ini, &gp);
    int sr = gpu_setup(g, &gp, err);
    compile_result_free(&chk), compile_result_free(&ini);
    if (sr != 0) goto done;
    gj.cubin = cr.cubin.data;
    gj.cubin_len = cr.cubin.len;
    char kname[GPU_NAME_MAX];
    gj.kernel = job_kernel_name(s, &cr, kname, sizeof kname);
    gj.timeout_s = 600;
    gj.best_ms = -1; /* no early stop */
    gj.min_samples = gj.max_samples = o->samples;
    gj.min_samples_fixed = 1;
    gj.target_rse = 1e-9;
    gj.isolated_samples = o->isolated;
    if (gpu_measure(g, &gj, rec, err) != 0) goto done;
  }
  record_set_str(&rec->device_name, gpu_info(g)->name);
  rc = 0;
done:
  job_hold_free(&hold);
  compile_result_free(&refc), compile_result_free(&cr);
  compile_source_free(&src);
  gpu_stop(g);
  space_free(s);
  free(self);
  return rc;
}
