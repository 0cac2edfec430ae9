/* compile_only: `cutune run` without a GPU (see compile_only.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/progress.h"
#include "report/report.h"
#include "base/input.h"
#include "compile_only.h"
#include "tune.h"

size_t compile_only_count(size_t all, const run_opts *o, char *note, size_t len, int *ordered) {
  *ordered = 0;
  note[0] = 0;
  if (o->sample == RUN_SAMPLE_ALL) {
    *ordered = o->time_limit <= 0;
    return all;
  }
  if (o->sample > 0 || o->budget > 0) {
    long n = o->sample > 0 ? o->sample : o->budget;
    if ((size_t)n >= all) {
      *ordered = o->time_limit <= 0;
      return all;
    }
    snprintf(note, len,
             "%s %ld without a GPU: a sample of %ld configurations of %zu (every value of every parameter "
             "first, then random ones; --seed)",
             o->sample > 0 ? "--sample" : "--budget", n, n, all);
    return (size_t)n;
  }
  if (o->time_limit > 0) {
    snprintf(note, len,
             "--time %g without a GPU: compiling for at most %g s (every value of every parameter first, "
             "then random ones; --seed)",
             o->time_limit, o->time_limit);
    return all;
  }
  if (all > TUNE_EXHAUSTIVE_MAX) {
    snprintf(note, len,
             "%zu configurations are too many to compile by default: a sample of %d (every value of every "
             "parameter first, then random ones; --seed). --sample N compiles N, --sample all every one",
             all, TUNE_DEFAULT_BUDGET);
    return TUNE_DEFAULT_BUDGET;
  }
  *ordered = 1;
  return all;
}

/* The n configurations to compile, in the order to hand them out: the space's order (ordered),
 * else a cover first and then random others. Sets *ncover to the size of the cover (0 when
 * ordered). */
static size_t choose(const configset *cs, const run_opts *o, size_t n, int ordered, size_t **idx, size_t *ncover) {
  size_t all = configset_count(cs);
  *ncover = 0;
  *idx = xcalloc(all ? all : 1, sizeof **idx);
  if (ordered) {
    for (size_t i = 0; i < all; i++) (*idx)[i] = i;
    return all;
  }
  rng r;
  rng_seed(&r, o->seed);
  /* the cover comes whole even when N is smaller: it is what reaches every branch */
  size_t k = configset_cover(cs, &r, *idx, all);
  *ncover = k;
  unsigned char *taken = xcalloc(all, 1);
  for (size_t i = 0; i < k; i++) taken[(*idx)[i]] = 1;
  /* then distinct random ones: a partial Fisher-Yates over the rest */
  size_t nrest = 0, *rest = xcalloc(all, sizeof *rest);
  for (size_t i = 0; i < all; i++)
    if (!taken[i]) rest[nrest++] = i;
  while (k < n && nrest > 0) {
    size_t j = (size_t)rng_below(&r, nrest);
    (*idx)[k++] = rest[j];
    rest[j] = rest[--nrest];
  }
  free(rest), free(taken);
  return k;
}

/* The compile keys this run compiled itself, an open-addressed set (half full at most). A
 * configuration whose key is among them shares a module compiled in this run, whether it was
 * submitted while that compile was in flight (the pool marks it shared) or after it had written
 * the cache (the pool says cached): which of the two happens is a matter of timing, so the
 * counts go by the key, and "from the cache" means from a cache this run found. */
typedef struct keyset {
  char (*slot)[65];
  size_t cap, n;
} keyset;

static size_t keyset_slot(const keyset *ks, const char *key) {
  size_t i = (size_t)checksum64(key, strlen(key)) & (ks->cap - 1);
  while (ks->slot[i][0] && strcmp(ks->slot[i], key)) i = (i + 1) & (ks->cap - 1);
  return i;
}
static int keyset_has(const keyset *ks, const char *key) { return ks->cap && ks->slot[keyset_slot(ks, key)][0]; }
static void keyset_add(keyset *ks, const char *key) {
  if (2 * (ks->n + 1) > ks->cap) {
    keyset old = *ks;
    ks->cap = old.cap ? 2 * old.cap : 64;
    ks->slot = xcalloc(ks->cap, sizeof *ks->slot);
    for (size_t i = 0; i < old.cap; i++)
      if (old.slot[i][0]) memcpy(ks->slot[keyset_slot(ks, old.slot[i])], old.slot[i], 65);
    free(old.slot);
  }
  size_t i = keyset_slot(ks, key);
  if (!ks->slot[i][0]) memcpy(ks->slot[i], key, 65), ks->n++;
}

/* The whole message of each failure of one kind (the table shows a shortened first line):
 * 20 of them, or every one with -v. */
static void list_failures(const run_opts *o, const record *const *view, size_t n, rec_status st, const char *what) {
  size_t total = 0, shown = 0;
  for (size_t i = 0; i < n; i++) total += view[i] && view[i]->status == st;
  if (!total) return;
  printf("\n%s (%zu):\n", what, total);
  for (size_t i = 0; i < n; i++) {
    if (!view[i] || view[i]->status != st) continue;
    if (!o->verbose && shown == 20) {
      printf("(%zu more; -v lists every one)\n", total - 20);
      break;
    }
    printf("%s: %s\n", view[i]->config, view[i]->message ? view[i]->message : "");
    shown++;
  }
}

/* Where the CSV goes (--csv FILE): the whole resource table, written as a user's -o is. */
static int write_csv(const char *path, const record *const *view, size_t n, cterr *err) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m) return cterr_set(err, "--csv %s: out of memory", path);
  report_csv(m, view, n);
  fclose(m);
  int rc = file_write_output(path, buf, len, err);
  free(buf);
  return rc < 0 ? cterr_wrap(err, "--csv") : 0;
}

int run_compile_only(space *s, const run_opts *o, const char *self_exe, const char *why_no_gpu, run_outcome *out,
                     cterr *err) {
  const char *arch = o->arch ? o->arch : "sm_90";
  const configset *cs = space_configs(s);
  size_t ncover = 0, *idx = NULL;
  char note[400];
  int ordered;
  size_t n = compile_only_count(configset_count(cs), o, note, sizeof note, &ordered);
  n = choose(cs, o, n, ordered, &idx, &ncover);
  compile_source src;
  compile_source_init(&src);
  cpool *pool = NULL;
  record *recs = NULL;
  const record **view = NULL;
  int rc = -1;
  progress *pg = NULL;
  compile_result refc;
  compile_result_init(&refc);
  keyset compiled = {0};
  unsigned char *fresh = NULL; /* compiled in this run: not cached, shared or skipped */

  if (job_load_source(s, &src, err) != 0) goto done;
  int jobs;
  if (job_open_pool(o, self_exe, &pool, &jobs, err) != 0) goto done;
  cpool_set_resources_only(pool, 1); /* the table needs resources, not the images */
  /* the reference first: without it no configuration could be checked, so a reference that
   * does not compile (or is misspelled) fails the run before anything else is compiled */
  if (job_compile_reference(s, arch, pool, &refc, err) != 0) goto done;
  compile_result_free(&refc); /* the user's check kernel next: it too must compile before anything else */
  if (job_compile_check(s, arch, pool, &refc, err) != 0) goto done;
  compile_result_free(&refc); /* and the init launches' program */
  if (job_compile_init(s, arch, pool, &refc, err) != 0) goto done;
  cpool_stats before; /* the programs of the reference, the check kernel and the init, left out below */
  cpool_get_stats(pool, &before);

  int prob = 0;
  if (!o->quiet) {
    printf("%s: %zu valid configurations of %.0f (enumerated in %.3f s); compiling for %s with %d worker%s\n",
           space_path(s), configset_count(cs), configset_raw_size(cs), space_enumerate_seconds(s), arch, jobs,
           jobs == 1 ? "" : "s");
    if (note[0]) printf("%s\n", note);
    if (ncover) printf("%zu configurations, %zu of them covering every value of every parameter\n", n, ncover);
    if (o->strategy) printf("--strategy %s: there is no search without a GPU to measure\n", o->strategy);
  }
  recs = xcalloc(n ? n : 1, sizeof(record));
  view = xcalloc(n ? n : 1, sizeof(record *));
  fresh = xcalloc(n ? n : 1, 1);
  pg = progress_new(stderr, "compile", n, o->quiet ? 0 : o->progress_tty);
  progress_set_quiet(pg, o->quiet);
  /* handed out a window at a time (the pool works ahead by 2 x jobs), so --time can stop it */
  size_t next = 0, got = 0, failed = 0, cached = 0, shared = 0, invalid = 0, unfit = 0, generr = 0;
  size_t window = 2 * (size_t)jobs + 4;
  size_t nspace = 0; /* failed in the space's own functions (space_error) */
  const char *first_space = NULL;
  double t0 = now_seconds();
  int out_of_time = 0, space_stop = 0;
  for (;;) {
    out_of_time = out_of_time || (o->time_limit > 0 && now_seconds() - t0 > o->time_limit);
    /* the first JOB_SPACE_STOP all failed in the space's own code: the same mistake everywhere */
    space_stop = space_stop || (nspace >= JOB_SPACE_STOP && nspace == got);
    while (!out_of_time && !space_stop && next < n && next - got < window) {
      compile_job job;
      job_hold hold;
      if (job_make(s, &src, idx[next], arch, &job, &hold, err) != 0) goto done;
      int sr = 0;
      if (hold.unfit[0]) { /* the space's arch: not for this target, not compiled */
        job_record_base(s, idx[next], prob, arch, NULL, &recs[next], NULL);
        view[next] = &recs[next];
        unfit++, got++;
        progress_step(pg, 1, NAN, NAN, NULL);
      } else if (hold.failed) { /* the space's generator failed for it: a compile error, not compiled */
        compile_result cr;
        job_failed_result(&hold, &cr);
        job_record_base(s, idx[next], prob, arch, &cr, &recs[next], NULL);
        compile_result_free(&cr);
        view[next] = &recs[next];
        failed++, got++, generr++;
        if (!nspace++) first_space = recs[next].message;
        if (o->verbose) progress_log(pg, "%-40s %-13s %s", recs[next].config, "space_error", recs[next].message);
        progress_step(pg, 1, NAN, NAN, NULL);
      } else sr = cpool_submit(pool, (uint64_t)next, &job, err);
      job_hold_free(&hold);
      if (sr != 0) goto done;
      next++;
    }
    if (got == next) break;
    uint64_t tag;
    compile_result cr;
    int w = cpool_wait(pool, &tag, &cr, 200, err);
    if (w < 0) goto done;
    if (w == 0) continue;
    job_record_base(s, idx[tag], prob, arch, &cr, &recs[tag], NULL);
    view[tag] = &recs[tag];
    /* a compile's result comes out before any cache hit its entry answered (the pool writes
     * the entry as it queues the result, and hands results out first in, first out) */
    if (cr.cached && cr.key[0] && keyset_has(&compiled, cr.key)) cr.cached = 0, cr.shared = 1;
    else if (!cr.cached && !cr.shared && cr.key[0]) keyset_add(&compiled, cr.key);
    if (cr.cached) cached++;
    else if (cr.shared) shared++;
    else fresh[tag] = 1;
    if (recs[tag].status == ST_INVALID) invalid++; /* over a limit: data, not a failure (exit status) */
    else if (recs[tag].status != ST_OK) failed++;
    if (recs[tag].status == ST_SPACE_ERROR && !nspace++) first_space = recs[tag].message;
    if (o->verbose) { /* -v: a line per configuration, as it finishes */
      const record *r = &recs[tag];
      if (r->status == ST_OK)
        progress_log(pg, "%-40s %-13s %3d regs %6d B smem %4d B spills %3.0f%% occupancy", r->config,
                     cr.cached   ? "ok (cached)"
                     : cr.shared ? "ok (shared)"
                                 : "ok",
                     r->regs, r->smem_static, r->spill_stores, 100.0 * r->occupancy);
      else progress_log(pg, "%-40s %-13s %s", r->config, rec_status_name(r->status), r->message ? r->message : "");
    }
    progress_step(pg, recs[tag].status == ST_INVALID ? PROGRESS_INVALID : recs[tag].status != ST_OK, NAN, NAN, NULL);
    compile_result_free(&cr);
    got++;
  }
  double dt = now_seconds() - t0;
  progress_finish(pg);
  if (o->verbose) report_resources(stdout, view, got);
  else report_compile_summary(stdout, view, got, 3);
  if (!o->quiet) { /* where the compile time went: the configurations compiled here */
    const record **mine = xcalloc(got + 1, sizeof *mine);
    size_t nmine = 0;
    for (size_t i = 0; i < next; i++)
      if (fresh[i] && view[i]) mine[nmine++] = view[i];
    report_compile_times(stdout, mine, nmine, 4);
    free(mine);
  }
  list_failures(o, view, got, ST_COMPILE_ERROR, "compile errors, whole");
  list_failures(o, view, got, ST_SPACE_ERROR, "errors in the space's own functions (geometry, arguments), whole");
  list_failures(o, view, got, ST_INVALID, "invalid configurations (geometry, launch limits or architecture), whole");
  list_failures(o, view, got, ST_COMPILE_TIMEOUT, "compile timeouts");
  list_failures(o, view, got, ST_WORKER_LOST, "compile workers lost (measured again on the next run)");
  if (o->csv && write_csv(o->csv, view, got, err) != 0) goto done;
  char sharedtxt[320] = "", timetxt[96] = "";
  if (shared) snprintf(sharedtxt, sizeof sharedtxt, ", %zu sharing another's module (runtime parameters)", shared);
  if (unfit)
    snprintf(sharedtxt + strlen(sharedtxt), sizeof sharedtxt - strlen(sharedtxt),
             ", %zu not for %s (the space's arch: not compiled)", unfit, arch);
  if (generr)
    snprintf(sharedtxt + strlen(sharedtxt), sizeof sharedtxt - strlen(sharedtxt),
             ", %zu whose program template_edit could not make (not compiled)", generr);
  char invtxt[96] = "";
  if (invalid) snprintf(invtxt, sizeof invtxt, ", %zu invalid (over a limit of %s)", invalid, arch);
  if (got < n && space_stop)
    snprintf(timetxt, sizeof timetxt, " (stopped early: %zu of the %zu were not handed out)", n - got, n);
  else if (got < n)
    snprintf(timetxt, sizeof timetxt, " (--time %g: %zu of the %zu were not handed out)", o->time_limit, n - got, n);
  printf("\n%zu configurations for %s in %.2f s%s: %zu compiled%s, %zu from the cache, %zu failed%s%s\n", got, arch, dt,
         timetxt, got - cached - shared - unfit - generr, sharedtxt, cached, failed, invtxt,
         !failed         ? ""
         : failed == got ? " (none succeeded: exit status 4)"
                         : " (their messages are above; failed configurations are data: exit status 3)");
  cpool_stats ps;
  cpool_get_stats(pool, &ps);
  ps.programs -= before.programs;
  if (ps.programs) {
    printf("NVRTC programs: %ld for %zu compiled configurations", ps.programs, got - cached - shared - unfit - generr);
    if (ps.batches)
      printf(" (%ld configurations in %ld batch%s of up to %d)", ps.batched, ps.batches, ps.batches == 1 ? "" : "es",
             ps.largest);
    if (ps.rebatched)
      printf("; %ld batched again after another member of their batch was over the shared-memory limit", ps.rebatched);
    if (ps.retried) printf("; %ld compiled again alone after their batch failed", ps.retried);
    if (ps.batch_off) printf("; batching turned off: a failed batch's members all compiled alone");
    if (isfinite(ps.fixed_ms)) printf("; NVRTC's fixed cost per program %.0f ms", ps.fixed_ms);
    printf("\n");
  }
  report_space_errors(stdout, nspace, first_space, space_stop ? JOB_SPACE_STOP : 0);
  if (o->csv) printf("the whole table, as CSV: %s\n", o->csv);
  else if (!o->verbose) printf("the whole table: -v, or --csv FILE\n");
  printf(
      "%s: timing needs a GPU. Run this command on a machine with a CUDA device to measure;\n"
      "nothing was written to %s/.\n",
      why_no_gpu, o->results_dir);
  out->configs = got, out->failed = failed;
  rc = 0;
done:
  compile_result_free(&refc);
  if (recs)
    for (size_t i = 0; i < n; i++) record_free(&recs[i]);
  free(recs), free(view), free(idx), free(compiled.slot), free(fresh);
  progress_free(pg);
  cpool_free(pool);
  compile_source_free(&src);
  return rc;
}
