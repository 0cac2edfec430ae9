/* record: see record.h. */
#include "record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static const char *const status_names[ST_COUNT] = {
    "ok", "compile_error", "launch_error", "runtime_fault", "timeout", "wrong_result", "invalid", "compile_timeout", "worker_lost"};

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
  r->t_median = r->t_min = r->t_mean = r->t_std = r->t_isolated = NAN;
  r->gbps = r->copy_share = r->gflops = r->energy_mj = NAN;
  r->occupancy = r->compile_ms = NAN;
  r->sm_clock_mhz = r->mem_clock_mhz = r->temperature_c = NAN;
  r->samples = 0;
  r->regs = r->smem_static = r->smem_dynamic = r->local_bytes = r->spill_stores = r->spill_loads = -1;
  r->block_threads = -1;
  r->throttle_reasons = -1;
}

#define STR_FIELDS(X)                                                                               \
  X(space) X(config) X(problem) X(message) X(limiter) X(template_hash) X(options_hash) X(nvrtc_version) \
  X(driver_version) X(device_name) X(device_cc) X(device_uuid) X(arch) X(timestamp)

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

void record_set_str(char **field, const char *value) {
  free(*field);
  *field = value ? xstrdup(value) : NULL;
}
