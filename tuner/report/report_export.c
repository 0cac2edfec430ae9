/* report_export: the CSV and JSON exports of report.h — every record, for tools. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "store/record_json.h"
#include "store/store.h"
#include "base/util.h"

static void csv_str(dbuf *b, const char *s) {
  if (!s) return;
  if (!strpbrk(s, ",\"\r\n")) {
    dbuf_puts(b, s);
    return;
  }
  dbuf_puts(b, "\"");
  for (; *s; s++) {
    if (*s == '"') dbuf_puts(b, "\"");
    dbuf_append(b, s, 1);
  }
  dbuf_puts(b, "\"");
}

static void csv_num(dbuf *b, double v) {
  if (isfinite(v)) dbuf_json_num(b, v);
}

static void csv_int(dbuf *b, long long v) {
  if (v != -1) dbuf_printf(b, "%lld", v);
}

void report_csv(FILE *out, const record *const *recs, size_t n) {
  /* parameter columns: names in order of first appearance */
  const char *names[REC_MAX_PARAMS];
  int np = 0;
  for (size_t i = 0; i < n; i++)
    for (int j = 0; recs[i] && j < recs[i]->nparams; j++) {
      int found = 0;
      for (int q = 0; q < np && !found; q++) found = !strcmp(names[q], recs[i]->pname[j]);
      if (!found && np < REC_MAX_PARAMS) names[np++] = recs[i]->pname[j];
    }
  dbuf b;
  dbuf_init(&b);
  dbuf_puts(&b, "space,config,problem");
  for (int q = 0; q < np; q++) dbuf_puts(&b, ","), csv_str(&b, names[q]);
  dbuf_puts(&b,
            ",status,message,t_median_ms,t_min_ms,t_mean_ms,t_std_ms,samples,gbps,copy_share,gflops,energy_mj,"
            "regs,smem_static,smem_dynamic,local_bytes,spill_stores,spill_loads,block_threads,occupancy,limiter,"
            "compile_ms,template_hash,options_hash,nvrtc,driver,device,cc,uuid,arch,time,sm_clock_mhz,"
            "mem_clock_mhz,throttle_reasons,temperature_c,raced_above_ms,race_ref,check_hash,launch_hash\n");
  fputs(b.data, out);
  for (size_t i = 0; i < n; i++) {
    const record *r = recs[i];
    if (!r) continue;
    dbuf_reset(&b);
    csv_str(&b, r->space), dbuf_puts(&b, ","), csv_str(&b, r->config), dbuf_puts(&b, ","), csv_str(&b, r->problem);
    for (int q = 0; q < np; q++) {
      dbuf_puts(&b, ",");
      for (int j = 0; j < r->nparams; j++)
        if (!strcmp(r->pname[j], names[q])) csv_str(&b, r->pvalue[j]);
    }
    dbuf_puts(&b, ","), csv_str(&b, rec_status_name(r->status));
    dbuf_puts(&b, ","), csv_str(&b, r->message);
    const double nums1[] = {r->t_median, r->t_min, r->t_mean, r->t_std};
    for (int k = 0; k < 4; k++) dbuf_puts(&b, ","), csv_num(&b, nums1[k]);
    dbuf_puts(&b, ","), csv_int(&b, r->samples);
    const double nums2[] = {r->gbps, r->copy_share, r->gflops, r->energy_mj};
    for (int k = 0; k < 4; k++) dbuf_puts(&b, ","), csv_num(&b, nums2[k]);
    const int ints[] = {r->regs,         r->smem_static, r->smem_dynamic, r->local_bytes,
                        r->spill_stores, r->spill_loads, r->block_threads};
    for (int k = 0; k < 7; k++) dbuf_puts(&b, ","), csv_int(&b, ints[k]);
    dbuf_puts(&b, ","), csv_num(&b, r->occupancy);
    dbuf_puts(&b, ","), csv_str(&b, r->limiter);
    dbuf_puts(&b, ","), csv_num(&b, r->compile_ms);
    const char *strs[] = {r->template_hash, r->options_hash, r->nvrtc_version, r->driver_version, r->device_name,
                          r->device_cc,     r->device_uuid,  r->arch,          r->timestamp};
    for (int k = 0; k < 9; k++) dbuf_puts(&b, ","), csv_str(&b, strs[k]);
    dbuf_puts(&b, ","), csv_num(&b, r->sm_clock_mhz);
    dbuf_puts(&b, ","), csv_num(&b, r->mem_clock_mhz);
    dbuf_puts(&b, ","), csv_int(&b, r->throttle_reasons);
    dbuf_puts(&b, ","), csv_num(&b, r->temperature_c);
    dbuf_puts(&b, ","), csv_num(&b, r->t_raced); /* empty: timed in full (docs/MEASURE.md) */
    /* the bound it lost to: kth or best; a raced record of before race_ref counts as kth */
    dbuf_puts(&b, ","), csv_str(&b, record_raced(r) ? (r->race_ref ? r->race_ref : RECORD_RACE_KTH) : NULL);
    /* what decided the check (docs/RECORDS.md); empty in records of before it */
    dbuf_puts(&b, ","), csv_str(&b, r->check_hash);
    dbuf_puts(&b, ","), csv_str(&b, r->launch_hash); /* how it was launched; empty likewise */
    dbuf_puts(&b, "\n");
    fputs(b.data, out);
  }
  dbuf_free(&b);
}

void report_json(FILE *out, const record *const *recs, size_t n) {
  dbuf b;
  dbuf_init(&b);
  fputs("[", out);
  int first = 1;
  for (size_t i = 0; i < n; i++) {
    if (!recs[i]) continue;
    dbuf_reset(&b);
    record_to_json(recs[i], &b);
    fprintf(out, "%s\n%s", first ? "" : ",", b.data);
    first = 0;
  }
  fputs("\n]\n", out);
  dbuf_free(&b);
}
