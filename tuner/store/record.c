/* record: see record.h. */
#include "record.h"

#include <math.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "base/util.h"

static const char *const status_names[ST_COUNT] = {"ok",          "compile_error", "launch_error", "runtime_fault",
                                                   "timeout",     "wrong_result",  "invalid",      "compile_timeout",
                                                   "worker_lost", "space_error"};

const char *rec_status_name(rec_status s) { return (s >= 0 && s < ST_COUNT) ? status_names[s] : "unknown"; }

int rec_status_parse(const char *s, rec_status *out) {
  for (int i = 0; i < ST_COUNT; i++)
    if (s && !strcmp(s, status_names[i])) {
      *out = (rec_status)i;
      return 0;
    }
  return -1;
}

void record_init(record *r) {
  memset(r, 0, sizeof *r);
  r->status = ST_OK;
  r->t_median = r->t_min = r->t_mean = r->t_std = r->t_isolated = r->t_iso_floor = r->cublas_share = NAN;
  r->gbps = r->copy_share = r->gflops = r->energy_mj = NAN;
  r->occupancy = r->compile_ms = r->measure_ms = NAN;
  r->m_load_ms = r->m_check_ms = r->m_timing_ms = r->m_isolated_ms = r->t_raced = NAN;
  r->sm_clock_mhz = r->mem_clock_mhz = r->temperature_c = NAN;
  r->samples = 0;
  r->regs = r->smem_static = r->smem_dynamic = r->local_bytes = r->spill_stores = r->spill_loads = -1;
  r->block_threads = -1;
  r->throttle_reasons = -1;
  r->device_sms = -1;
}

/* clang-format off: an X-macro list, one entry a line */
#define STR_FIELDS(X)                                                                                                  \
  X(space)                                                                                                             \
  X(config)                                                                                                            \
  X(problem)                                                                                                           \
  X(message)                                                                                                           \
  X(limiter)                                                                                                           \
  X(template_hash)                                                                                                     \
  X(options_hash)                                                                                                      \
  X(check_hash)                                                                                                        \
  X(launch_hash)                                                                                                       \
  X(nvrtc_version)                                                                                                     \
  X(driver_version)                                                                                                    \
  X(device_name)                                                                                                       \
  X(device_cc)                                                                                                         \
  X(device_uuid)                                                                                                       \
  X(arch)                                                                                                              \
  X(timestamp)                                                                                                         \
  X(race_ref)
/* clang-format on */

void record_free(record *r) {
#define FREE_FIELD(f) free(r->f);
  STR_FIELDS(FREE_FIELD)
#undef FREE_FIELD
  for (int i = 0; i < r->nparams; i++) free(r->pname[i]), free(r->pvalue[i]);
  record_init(r);
}

void record_copy(record *dst, const record *src) {
  memcpy(dst, src, sizeof *dst);
#define DUP_FIELD(f) dst->f = src->f ? xstrdup(src->f) : NULL;
  STR_FIELDS(DUP_FIELD)
#undef DUP_FIELD
  for (int i = 0; i < src->nparams; i++) {
    dst->pname[i] = xstrdup(src->pname[i]);
    dst->pvalue[i] = xstrdup(src->pvalue[i]);
  }
}

int record_raced(const record *r) { return r->status == ST_OK && isfinite(r->t_raced); }

int record_raced_early(const record *r) {
  return record_raced(r) && r->race_ref && !strcmp(r->race_ref, RECORD_RACE_BEST);
}

void record_set_str(char **field, const char *value) {
  free(*field);
  *field = value ? xstrdup(value) : NULL;
}

/* ---- numeric fields by name (objectives, `cutune best`) ---- */

typedef struct rec_field {
  const char *name;
  size_t off;
  int is_int; /* int field (-1: unknown) rather than double (NAN: unknown) */
} rec_field;

#define RF_D(n, f)                                                                                                     \
  { n, offsetof(record, f), 0 }
#define RF_I(n, f)                                                                                                     \
  { n, offsetof(record, f), 1 }
static const rec_field rec_fields[] = {
    RF_D("time", t_median),
    RF_D("energy", energy_mj),
    RF_D("t_min", t_min),
    RF_D("t_mean", t_mean),
    RF_D("t_std", t_std),
    RF_D("gbps", gbps),
    RF_D("copy_share", copy_share),
    RF_D("gflops", gflops),
    RF_D("cublas_share", cublas_share),
    RF_I("regs", regs),
    RF_I("smem_static", smem_static),
    RF_I("smem_dynamic", smem_dynamic),
    RF_I("local_bytes", local_bytes),
    RF_I("spill_stores", spill_stores),
    RF_I("spill_loads", spill_loads),
    RF_I("block_threads", block_threads),
    RF_D("occupancy", occupancy),
    RF_D("compile_ms", compile_ms),
    RF_D("measure_ms", measure_ms),
    RF_D("temperature_c", temperature_c),
    RF_D("sm_clock_mhz", sm_clock_mhz),
};
#define N_REC_FIELDS (sizeof rec_fields / sizeof rec_fields[0])

static const rec_field *find_field(const char *name) {
  for (size_t i = 0; name && i < N_REC_FIELDS; i++)
    if (!strcmp(rec_fields[i].name, name)) return &rec_fields[i];
  return NULL;
}

int record_field_known(const char *name) { return find_field(name) != NULL; }

const char *record_field_names(void) {
  return "time, energy, t_min, t_mean, t_std, gbps, copy_share, gflops, cublas_share, regs, smem_static, smem_dynamic, "
         "local_bytes, spill_stores, spill_loads, block_threads, occupancy, compile_ms, measure_ms, temperature_c, "
         "sm_clock_mhz";
}

double record_cost_ms(const record *r) {
  double c = isfinite(r->compile_ms) ? r->compile_ms : 0;
  if (isfinite(r->measure_ms)) c += r->measure_ms;
  else if (isfinite(r->t_median)) c += r->t_median * (r->samples > 0 ? r->samples : 1);
  return c;
}

double record_field(const record *r, const char *name) {
  const rec_field *f = find_field(name);
  if (!f) return NAN;
  const char *base = (const char *)r + f->off;
  if (f->is_int) {
    int v;
    memcpy(&v, base, sizeof v);
    return v < 0 ? NAN : (double)v;
  }
  double d;
  memcpy(&d, base, sizeof d);
  return d;
}

int record_timed(const record *r) { return r->status == ST_OK && isfinite(r->t_median) && r->t_median > 0; }
