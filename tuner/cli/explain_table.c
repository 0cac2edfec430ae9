/* explain_table: the printed side-by-side table of `cutune explain` (see explain_int.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_int.h"

static void diff_line(const pick *a, const pick *base, dbuf *o) {
  /* parameters where a differs from the first pick, "PAD=0 (#1: 1)" */
  char *ka = xstrdup(a->config), *kb = xstrdup(base->config), *sa = NULL, *sb = NULL;
  int n = 0;
  char *ta = strtok_r(ka, ",", &sa), *tb = strtok_r(kb, ",", &sb);
  for (; ta && tb; ta = strtok_r(NULL, ",", &sa), tb = strtok_r(NULL, ",", &sb)) {
    if (!strcmp(ta, tb)) continue;
    const char *vb = strchr(tb, '=');
    dbuf_printf(o, "%s%s (#1: %s)", n++ ? ", " : "; differs from #1 in ", ta, vb ? vb + 1 : "?");
  }
  free(ka), free(kb);
}

static void row(const char *label, const pick *pk, int n, double (*f)(const pick *), int prec, int sign) {
  printf("  %-34s", label);
  for (int i = 0; i < n; i++) {
    double v = f(&pk[i]);
    char c[32];
    if (isfinite(v)) snprintf(c, sizeof c, sign ? "%+.*f" : "%.*f", prec, v);
    else snprintf(c, sizeof c, "-");
    printf(" %10s", c);
  }
  printf("\n");
}

#define MF(name, expr)                                                                                                 \
  static double name(const pick *p) { return p->have_m ? (expr) : NAN; }
static double f_median(const pick *p) { return p->median_ms * 1e3; }
static double f_isolated(const pick *p) { return p->isolated_ms * 1e3; }
static double f_store(const pick *p) { return p->rec ? p->rec->t_median * 1e3 : NAN; }
MF(f_ncu, p->m.v[NM_DURATION_NS] / 1e3)
MF(f_ncu_vs_iso, (p->isolated_ms * 1e6 / p->m.v[NM_DURATION_NS] - 1) * 100)
MF(f_ncu_vs_b2b, (p->median_ms * 1e6 / p->m.v[NM_DURATION_NS] - 1) * 100)
MF(f_dram, p->m.v[NM_DRAM_PCT])
MF(f_dram_mb, (p->m.v[NM_DRAM_READ] + p->m.v[NM_DRAM_WRITE]) / 1e6)
MF(f_sm, p->m.v[NM_SM_PCT])
MF(f_l1, p->m.v[NM_L1_HIT])
MF(f_l2, p->m.v[NM_L2_HIT])
MF(f_spr_ld, ncu_sectors_per_request(&p->m, 0))
MF(f_spr_st, ncu_sectors_per_request(&p->m, 1))
MF(f_way_ld, ncu_shared_ways(&p->m, 0))
MF(f_way_st, ncu_shared_ways(&p->m, 1))
MF(f_bank_ld, p->m.v[NM_BANK_LD])
MF(f_bank_st, p->m.v[NM_BANK_ST])
MF(f_occ_a, p->m.v[NM_OCC_ACHIEVED])
MF(f_occ_t, p->m.v[NM_OCC_THEORY])
MF(f_regs, p->m.v[NM_REGS])
MF(f_smem, p->m.v[NM_SMEM_BLOCK])
MF(f_local, p->m.v[NM_LOCAL_LD] + p->m.v[NM_LOCAL_ST])
MF(f_tensor_h, p->m.v[NM_TENSOR_HMMA])
MF(f_tensor_g, p->m.v[NM_TENSOR_GMMA])

void explain_print_table(const pick *pk, int n, const char *sname, const char *pkey, const char *device) {
  printf("\n== explain %s, problem %s on %s ==\n", sname, pkey, device ? device : "?");
  for (int i = 0; i < n; i++) printf("  #%-2d %-28s %s\n", i + 1, pk[i].label, pk[i].config);
  printf("\n  %-34s", "metric");
  for (int i = 0; i < n; i++) printf(" %9s%d", "#", i + 1);
  printf("\n");
  row("time in the store, us", pk, n, f_store, 1, 0);
  row("time, cutune back to back, us", pk, n, f_median, 1, 0);
  row("time, cutune isolated, us", pk, n, f_isolated, 1, 0);
  row("time, ncu gpu__time_duration, us", pk, n, f_ncu, 1, 0);
  row("  isolated vs ncu, %", pk, n, f_ncu_vs_iso, 1, 1);
  row("  back to back vs ncu, %", pk, n, f_ncu_vs_b2b, 1, 1);
  row("DRAM throughput, % of peak", pk, n, f_dram, 1, 0);
  row("DRAM bytes read+written, MB", pk, n, f_dram_mb, 0, 0);
  row("SM throughput, % of peak", pk, n, f_sm, 1, 0);
  row("L1 hit rate, %", pk, n, f_l1, 1, 0);
  row("L2 hit rate, %", pk, n, f_l2, 1, 0);
  row("global ld sectors per request", pk, n, f_spr_ld, 1, 0);
  row("global st sectors per request", pk, n, f_spr_st, 1, 0);
  row("shared ld wavefronts per instr", pk, n, f_way_ld, 2, 0);
  row("shared st wavefronts per instr", pk, n, f_way_st, 2, 0);
  row("bank conflicts, shared loads", pk, n, f_bank_ld, 0, 0);
  row("bank conflicts, shared stores", pk, n, f_bank_st, 0, 0);
  row("achieved occupancy, %", pk, n, f_occ_a, 1, 0);
  row("theoretical occupancy, %", pk, n, f_occ_t, 1, 0);
  row("registers per thread", pk, n, f_regs, 0, 0);
  row("static shared memory per block, B", pk, n, f_smem, 0, 0);
  row("local-memory sectors (spills)", pk, n, f_local, 0, 0);
  row("tensor pipe, HMMA counter, % of peak", pk, n, f_tensor_h, 1, 0);
  row("tensor pipe, GMMA counter, % of peak", pk, n, f_tensor_g, 1, 0);
  printf("\nreadings:\n");
  for (int i = 0; i < n; i++) {
    dbuf r;
    dbuf_init(&r);
    if (pk[i].have_m) ncu_reading(&pk[i].m, &r);
    else dbuf_puts(&r, "not profiled");
    if (i > 0) diff_line(&pk[i], &pk[0], &r);
    printf("  #%-2d %s\n", i + 1, r.data);
    dbuf_free(&r);
  }
  printf(
      "\ntimes: ncu profiles one launch after flushing and invalidating the caches, with nothing\n"
      "before it in flight; cutune's back-to-back batches include the write-back of the previous\n"
      "launch's dirty L2 lines and the gaps between launches, which cost a DRAM-bound kernel a few\n"
      "percent. cutune's isolated time (single launches after a read-only L2 flush, less the floor\n"
      "the same event pair reads around an empty kernel) is the one to compare with ncu.\n");
}
