/* profile_one: one configuration on one problem in a GPU worker, for the tools of `cutune
 * explain` (see profile_one.h).
 *
 *   cutune __profile-one SPACE CONFIG PROBLEM [--samples N] [--isolated N] [--device N]
 *
 * --samples N: timed samples (min = max = N; default 5), --isolated N: isolated single launches
 * (default 0). Under a sanitizer use --samples 1: each launch runs 10-100x slower there. The
 * worker's own time limit is 600 s: under ncu and the sanitizers the coordinator waits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile.h"
#include "gpu/gpu.h"
#include "engine/job.h"
#include "profile_one.h"
#include "store/store.h"

long profile_one_find_config(const space *s, const char *key) {
  const configset *cs = space_configs(s);
  size_t n = configset_count(cs);
  for (size_t i = 0; i < n; i++) {
    char *k = configset_row_key(cs, configset_row(cs, i));
    int eq = !strcmp(k, key);
    free(k);
    if (eq) return (long)i;
  }
  return -1;
}

int profile_one_find_problem(const space *s, const char *key) {
  for (int p = 0; p < space_nproblems(s); p++) {
    char idx[16];
    snprintf(idx, sizeof idx, "%d", p);
    if (!strcmp(key, idx) || !strcmp(key, space_problem_key(s, p))) return p;
  }
  return -1;
}

/* Compile through the on-disk cache (as the pool does), in this process. */
static int compile_cached(const compile_job *job, compile_result *cr, cterr *err) {
  char *dir = compile_cache_default_dir();
  compile_job_key(job, cr->key);
  int rc = 0;
  if (!(dir && compile_cache_get(dir, cr->key, cr))) {
    rc = compile_bundle(job, cr, err);
    if (rc == 0 && dir) compile_cache_put(dir, cr->key, cr, NULL);
  }
  free(dir);
  return rc;
}

static int compile_ref(space *s, const char *arch, compile_result *cr, cterr *err) {
  if (!space_ref_kernel(s) || space_ref_per_config(s)) return 0; /* none, or in the configuration's program */
  dbuf src;
  dbuf_init(&src);
  const char *path = space_ref_template_path(s);
  if (file_read(path, &src, err) != 0) return -1;
  compile_job job = {0};
  job.src_path = path;
  job.src = src.data;
  job.kernel = space_ref_kernel(s);
  job.arch = arch;
  job.opts[job.nopts++] = "-DCUTUNE_REFERENCE=1";
  for (int i = 0; i < space_ref_ndefines(s) && job.nopts < COMPILE_MAX_OPTS; i++) job.opts[job.nopts++] = space_ref_define(s, i);
  for (int i = 0; i < space_noptions(s) && job.nopts < COMPILE_MAX_OPTS; i++) job.opts[job.nopts++] = space_option(s, i);
  int rc = compile_cached(&job, cr, err);
  dbuf_free(&src);
  if (rc == 0 && !cr->ok) rc = cterr_set(err, "the reference kernel '%s' does not compile: %s", job.kernel, cr->message);
  return rc;
}

static int profile_one(const char *spath, const char *ckey, const char *pkey, int samples, int isolated, int device,
                       cterr *err) {
  space *s = NULL;
  gpu *g = NULL;
  compile_result refc, cr;
  compile_result_init(&refc), compile_result_init(&cr);
  dbuf line;
  dbuf_init(&line);
  compile_source src; /* the template and its includes (the compile-cache key covers both) */
  compile_source_init(&src);
  job_hold hold = {0};
  record rec;
  record_init(&rec);
  char *self = self_exe_path();
  int rc = -1;
  if (space_load(spath, &s, err) != 0) goto done;
  long cfg = profile_one_find_config(s, ckey);
  if (cfg < 0) {
    cterr_set(err, "%s: no valid configuration '%s' (give every parameter, in the space's order)", spath, ckey);
    goto done;
  }
  int prob = profile_one_find_problem(s, pkey);
  if (prob < 0) {
    cterr_set(err, "%s: no problem '%s'", spath, pkey);
    goto done;
  }
  if (!self) {
    cterr_set(err, "cannot find this executable (/proc/self/exe)");
    goto done;
  }
  if (gpu_start(&g, self, device, err) != 0) goto done;
  const char *arch = gpu_info(g)->arch;
  if (job_load_source(s, &src, err) != 0) goto done;
  if (compile_ref(s, arch, &refc, err) != 0) goto done;
  compile_job job;
  if (job_make(s, &src, (size_t)cfg, arch, &job, &hold, err) != 0) goto done;
  if (hold.unfit[0]) {
    cterr_set(err, "%s: configuration %ld %s (the space's arch)", space_path(s), cfg, hold.unfit);
    goto done;
  }
  job.lineinfo = 1; /* the profilers map SASS back to the template's lines (its own cache entry) */
  if (compile_cached(&job, &cr, err) != 0) goto done;
  gpu_job gj = {0};
  job_record_base(s, (size_t)cfg, prob, arch, &cr, &rec, &gj);
  if (rec.status == ST_OK) {
    gpu_problem gp;
    if (job_problem(s, prob, 1, &refc, &gp, err) != 0) goto done;
    compile_result chk;
    if (job_compile_check(s, arch, NULL, &chk, err) != 0) goto done;
    job_problem_check(s, &chk, &gp);
    int sr = gpu_setup(g, &gp, err);
    compile_result_free(&chk);
    if (sr != 0) goto done;
    gj.cubin = cr.cubin.data;
    gj.cubin_len = cr.cubin.len;
    char kname[GPU_NAME_MAX];
    gj.kernel = job_kernel_name(s, &cr, kname, sizeof kname);
    gj.timeout_s = 600;
    gj.best_ms = -1; /* no early stop */
    gj.min_samples = gj.max_samples = samples;
    gj.min_samples_fixed = 1;
    gj.target_rse = 1e-9;
    gj.isolated_samples = isolated;
    if (gpu_measure(g, &gj, &rec, err) != 0) goto done;
  }
  record_set_str(&rec.device_name, gpu_info(g)->name);
  record_to_json(&rec, &line);
  printf("%s%s\n", PROFILE_ONE_TAG, line.data);
  fflush(stdout);
  rc = 0;
done:
  record_free(&rec);
  job_hold_free(&hold);
  compile_result_free(&refc), compile_result_free(&cr);
  compile_source_free(&src);
  dbuf_free(&line);
  gpu_stop(g);
  space_free(s);
  free(self);
  return rc;
}

int profile_one_main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: cutune __profile-one SPACE CONFIG PROBLEM [--samples N] [--isolated N] [--device N]\n");
    return 2;
  }
  long samples = 5, isolated = 0, device = 0;
  cterr err = {{0}};
  for (int i = 4; i < argc; i += 2) { /* OPTION VALUE pairs */
    long *dst = !strcmp(argv[i], "--samples") ? &samples : !strcmp(argv[i], "--isolated") ? &isolated
              : !strcmp(argv[i], "--device") ? &device : NULL;
    if (!dst || i + 1 >= argc || parse_long(argv[i + 1], dst, argv[i], &err) != 0) {
      fprintf(stderr, "cutune __profile-one: bad option '%s'%s%s\n", argv[i], err.msg[0] ? ": " : "", err.msg);
      return 2;
    }
  }
  if (samples < 1) samples = 1;
  if (profile_one(argv[1], argv[2], argv[3], (int)samples, (int)isolated, (int)device, &err) != 0) {
    fprintf(stderr, "cutune __profile-one: %s\n", err.msg);
    return 1;
  }
  return 0;
}
