/* tune_phases: what the tuning loop (tune.c) builds on, and the phases around it: a record's
 * provenance and the store's answer for a configuration (the one place an index becomes the
 * store's key), the interrupt flag, the problems' setup and their references, the energy
 * objective's second pass and the final tables of each problem. It calls nothing of tune.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tune_int.h"
#include "report/report.h"

volatile sig_atomic_t tune_interrupted;

#define ENERGY_WINDOW_MS 500 /* per configuration (twice that where L2 is flushed) */

/* The one place a record's provenance is completed: the template and options hashes (the resume
 * key, computed once per configuration: tune_group.ohash), the check hash of its problem prob
 * and, for a record that never reached a GPU, the device fields of its group. Every record the
 * loop writes passes here. */
void tune_stamp(tune_ctx *t, int g, int prob, record *r, size_t cfg) {
  const gpu_device_info *dev = &t->x->group[g].info;
  if (!r->template_hash) record_set_str(&r->template_hash, t->template_hash);
  if (!r->options_hash) record_set_str(&r->options_hash, job_ohash(t->grp[g].ohash, cfg));
  if (!r->check_hash) record_set_str(&r->check_hash, t->check_hash[prob]);
  if (!r->device_name) record_set_str(&r->device_name, dev->name);
  if (!r->device_uuid) record_set_str(&r->device_uuid, dev->uuid);
  if (!r->device_cc) record_set_str(&r->device_cc, dev->cc);
  if (r->device_sms <= 0 && dev->sms > 0) r->device_sms = dev->sms;
  if (!r->driver_version) record_set_str(&r->driver_version, dev->driver);
}

/* What store_find_want asks for when a candidate record carries a launch hash: the one the
 * configuration has now (tune_ctx.lhash: computed once per configuration and problem). */
typedef struct launch_ask {
  job_lhashes *lh;
  size_t cfg;
  int prob;
} launch_ask;
static const char *launch_now(void *ctx) {
  const launch_ask *a = ctx;
  return job_lhash(a->lh, a->cfg, a->prob);
}

/* The store's record of configuration cfg of group g on problem prob with this template and
 * options, checked and launched as the problem is now (store_find_want), or NULL; space_errors:
 * a space_error record too (tune_latest). With ntimeouts, also how many of its records so keyed
 * are compile timeouts. The one place a configuration's index becomes the store's key. */
static const record *stored(const tune_ctx *t, int g, int prob, size_t cfg, int space_errors, size_t *ntimeouts) {
  const configset *cs = space_configs(t->s);
  const tune_group *tg = &t->grp[g];
  const char *pkey = space_problem_key(t->s, prob), *ohash = job_ohash(tg->ohash, cfg), *chash = t->check_hash[prob];
  char *key = configset_row_key(cs, configset_row(cs, cfg));
  launch_ask ask = {t->lhash, cfg, prob};
  store_want w = {t->template_hash, ohash, chash, space_errors, launch_now, &ask};
  const record *r = store_find_want(tg->st, key, pkey, &w);
  if (ntimeouts) *ntimeouts = store_count_status(tg->st, key, pkey, t->template_hash, ohash, chash, ST_COMPILE_TIMEOUT);
  free(key);
  return r;
}

const record *tune_stored(const tune_ctx *t, int g, int prob, size_t cfg, size_t *ntimeouts) {
  return stored(t, g, prob, cfg, 0, ntimeouts);
}

const record *tune_latest(const tune_ctx *t, int g, int prob, size_t cfg) { return stored(t, g, prob, cfg, 1, NULL); }

/* A configuration and the store's record of it. */
typedef struct cfg_record {
  size_t cfg;
  const record *r;
} cfg_record;

static int cmp_time(const void *a, const void *b) {
  const record *x = ((const cfg_record *)a)->r, *y = ((const cfg_record *)b)->r;
  return (x->t_median > y->t_median) - (x->t_median < y->t_median);
}

int tune_wants_energy(const space *s) {
  for (int i = 0; i < space_nobjectives(s); i++)
    if (!strcmp(space_objective(s, i), "energy")) return 1;
  return 0;
}

/* The energy objective's second pass, per model group: the configurations near the time front
 * (the --energy-top fastest, within --energy-within of the best time) are measured again with
 * an energy window of ENERGY_WINDOW_MS (exec remeasure, one device of the group), and the new
 * record (time and energy) is appended: the newest record of a configuration is the one the
 * store answers with. Configurations whose newest record has an energy figure are not
 * measured again. */
int tune_energy_pass(tune_ctx *t, int g, int prob, size_t *n_measured, cterr *err) {
  const char *pkey = space_problem_key(t->s, prob);
  tune_group *tg = &t->grp[g];
  size_t n = configset_count(space_configs(t->s)), k = 0, done = 0, measured = 0;
  cfg_record *view = xcalloc(n ? n : 1, sizeof *view);
  int rc = -1;
  for (size_t i = 0; i < n; i++) {
    const record *r = tune_stored(t, g, prob, i, NULL);
    if (r && record_timed(r)) view[k].cfg = i, view[k++].r = r;
  }
  qsort(view, k, sizeof *view, cmp_time);
  size_t want = 0;
  while (want < k && want < (size_t)t->o->energy_top &&
         view[want].r->t_median <= view[0].r->t_median * (1 + t->o->energy_within))
    want++;
  /* the store's records stay where they are while it grows (store_get): view holds across the appends */
  for (size_t j = 0; j < want; j++) done += isfinite(view[j].r->energy_mj) != 0;
  if (!t->o->quiet)
    fprintf(stderr,
            "problem %s%s: energy pass over %zu configurations within %.0f %% of the best time (%zu have a figure)\n",
            pkey, tg->label, want, 100 * t->o->energy_within, done);
  for (size_t j = 0; j < want && !tune_interrupted; j++) {
    if (isfinite(view[j].r->energy_mj)) continue; /* it has a figure */
    exec_done d;
    int gr = t->x->ops->remeasure(t->x, g, prob, view[j].cfg, ENERGY_WINDOW_MS, &d, err);
    if (gr < 0) goto done;
    if (gr == 0) continue; /* nothing to measure: it does not compile */
    tune_stamp(t, g, prob, &d.rec, view[j].cfg);
    char ebuf[64];
    gr = store_append(tg->st, &d.rec, err);
    if (gr == 0 && !t->o->quiet)
      fprintf(stderr, "  %-60s %.4f ms  %s\n", d.rec.config, d.rec.t_median,
              isfinite(d.rec.energy_mj) ? (snprintf(ebuf, sizeof ebuf, "%.4g mJ per launch", d.rec.energy_mj), ebuf)
              : d.rec.message && *d.rec.message ? d.rec.message
                                                : "no energy figure");
    record_free(&d.rec);
    if (gr != 0) goto done;
    measured++;
  }
  *n_measured += measured;
  rc = 0;
done:
  free(view);
  return rc;
}

/* The final tables of one problem and group from its store: newest record per configuration
 * measured with this template. */
static int cmp_cfg_record(const void *a, const void *b) {
  size_t x = ((const cfg_record *)a)->cfg, y = ((const cfg_record *)b)->cfg;
  return x < y ? -1 : x > y;
}

void tune_report_problem(tune_ctx *t, int g, int prob, run_outcome *out, int print) {
  const char *pkey = space_problem_key(t->s, prob);
  const configset *cs = space_configs(t->s);
  const store *st = t->grp[g].st;
  size_t n = configset_count(cs), k = 0, nrec = store_count(st), other = 0;
  /* each configuration's answer (tune_latest: tune_stored's, or a newer space_error, which is
   * never an answer but what became of it), found from the store's records of the problem: a
   * record is a configuration's when it is the one tune_latest gives for it (so each
   * configuration once), in the space's order; walking the store, not the space, keeps a space
   * of millions (Kernel Tuner's convolution: 1.87 M, 12 s here) as fast as its records */
  cfg_record *cr = xcalloc(nrec ? nrec : 1, sizeof *cr);
  for (size_t i = 0; i < nrec; i++) {
    const record *r = store_get(st, i);
    if (!r->problem || strcmp(r->problem, pkey)) continue;
    other += !store_same_check(t->check_hash[prob], r); /* never an answer: said below the title */
    long cfg = configset_find_named(cs, r->nparams, r->pname, r->pvalue);
    if (cfg >= 0 && tune_latest(t, g, prob, (size_t)cfg) == r) cr[k++] = (cfg_record){(size_t)cfg, r};
  }
  qsort(cr, k, sizeof *cr, cmp_cfg_record);
  const record **view = xcalloc(k ? k : 1, sizeof(record *));
  for (size_t i = 0; i < k; i++) {
    const record *r = view[i] = cr[i].r;
    out->configs++, out->failed += r->status != ST_OK && r->status != ST_INVALID; /* invalid: over a limit */
  }
  free(cr);
  if (!print) {
    free(view);
    return;
  }
  printf("\n== %s, problem %s: %zu of %zu configurations measured on %s ==\n", space_name(t->s), pkey, k, n,
         t->x->group[g].info.name);
  if (other) {
    dbuf note;
    dbuf_init(&note);
    report_other_checks(&note, other, NULL);
    printf("%s\n", note.data);
    dbuf_free(&note);
  }
  report_best(stdout, view, k, pkey, t->o->top, t->x->ops->copy_gbps(t->x, g, prob));
  printf("\nwhich parameters made the difference (best time per value):\n");
  report_param_effects(stdout, view, k, pkey);
  free(view);
}

/* Set problems probs[0..n-1] up on every device at once (buffers, inputs, the reference runs,
 * the baselines) and, unless quiet, say what each one's reference is. */
int tune_setup_problems(tune_ctx *t, const int *probs, int n, int quiet, cterr *err) {
  if (t->x->ops->problems(t->x, probs, n, err) != 0) return -1;
  trace_mark("%d problem(s) set up (references run)", n);
  if (quiet || t->o->quiet) return 0;
  for (int i = 0; i < n * t->x->ngroups; i++) {
    int g = i % t->x->ngroups, prob = probs[i / t->x->ngroups];
    int64_t mnk[3];
    const char *why = "", *pkey = space_problem_key(t->s, prob);
    double ms = t->x->ops->sgemm_ms(t->x, g, prob, &why);
    if (!space_sgemm(t->s, prob, mnk))
      fprintf(stderr, "problem %s%s: device-to-device copy of the same bytes %.0f GB/s (the %% copy reference)\n", pkey,
              t->grp[g].label, t->x->ops->copy_gbps(t->x, g, prob));
    else if (isfinite(ms))
      fprintf(stderr, "problem %s%s: cuBLAS %s %lldx%lldx%lld, %s: %.1f us, %.2f TFLOP/s (the %% cuBLAS reference)\n",
              pkey, t->grp[g].label, space_gemm_type(t->s) == EL_F32 ? "SGEMM" : "GemmEx", (long long)mnk[0],
              (long long)mnk[1], (long long)mnk[2],
              space_gemm_type(t->s) == EL_F32    ? "strict FP32"
              : space_gemm_type(t->s) == EL_BF16 ? "BF16 in, FP32 compute"
                                                 : "FP16 in, FP32 compute",
              ms * 1e3, 2.0 * mnk[0] * mnk[1] * mnk[2] / (ms * 1e-3) / 1e12);
    else if (*why)
      fprintf(stderr, "problem %s%s: no cuBLAS baseline (%s): the tables show TFLOP/s without %% cuBLAS\n", pkey,
              t->grp[g].label, why);
  }
  return 0;
}
