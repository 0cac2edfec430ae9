/* ncu: metric set, CSV parsing and the one-line reading (see ncu.h). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncu.h"

static const struct {
  const char *name, *key;
} metric_tab[NM_COUNT] = {
    [NM_DURATION_NS] = {"gpu__time_duration.sum", "duration_ns"},
    [NM_DRAM_PCT] = {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_pct"},
    [NM_DRAM_READ] = {"dram__bytes_read.sum", "dram_read_bytes"},
    [NM_DRAM_WRITE] = {"dram__bytes_write.sum", "dram_write_bytes"},
    [NM_SM_PCT] = {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_pct"},
    [NM_L1_HIT] = {"l1tex__t_sector_hit_rate.pct", "l1_hit_pct"},
    [NM_L2_HIT] = {"lts__t_sector_hit_rate.pct", "l2_hit_pct"},
    [NM_BANK_LD] = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "bank_conflicts_ld"},
    [NM_BANK_ST] = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "bank_conflicts_st"},
    [NM_WAVES_LD] = {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared_wavefronts_ld"},
    [NM_WAVES_ST] = {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared_wavefronts_st"},
    [NM_SHINST_LD] = {"smsp__inst_executed_op_shared_ld.sum", "shared_inst_ld"},
    [NM_SHINST_ST] = {"smsp__inst_executed_op_shared_st.sum", "shared_inst_st"},
    [NM_OCC_ACHIEVED] = {"sm__warps_active.avg.pct_of_peak_sustained_active", "occupancy_achieved_pct"},
    [NM_OCC_THEORY] = {"sm__maximum_warps_per_active_cycle_pct", "occupancy_theoretical_pct"},
    [NM_LIM_REGS] = {"launch__occupancy_limit_registers", "limit_registers"},
    [NM_LIM_SMEM] = {"launch__occupancy_limit_shared_mem", "limit_shared_mem"},
    [NM_LIM_WARPS] = {"launch__occupancy_limit_warps", "limit_warps"},
    [NM_LIM_BLOCKS] = {"launch__occupancy_limit_blocks", "limit_blocks"},
    [NM_REGS] = {"launch__registers_per_thread", "registers"},
    [NM_SMEM_BLOCK] = {"launch__shared_mem_per_block_static", "smem_static"},
    [NM_BLOCK_SIZE] = {"launch__block_size", "block_size"},
    [NM_GRID_SIZE] = {"launch__grid_size", "grid_size"},
    [NM_LOCAL_LD] = {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "local_sectors_ld"},
    [NM_LOCAL_ST] = {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "local_sectors_st"},
    [NM_GLD_SECTORS] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global_sectors_ld"},
    [NM_GLD_REQUESTS] = {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global_requests_ld"},
    [NM_GST_SECTORS] = {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global_sectors_st"},
    [NM_GST_REQUESTS] = {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global_requests_st"},
    [NM_TENSOR_HMMA] = {"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor_hmma_pct"},
    [NM_TENSOR_GMMA] = {"sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active", "tensor_gmma_pct"},
    [NM_WAVES_LDSM] = {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum", "shared_wavefronts_ldsm"},
    [NM_SHINST_LDSM] = {"smsp__sass_inst_executed_op_ldsm.sum", "shared_inst_ldsm"},
};
/* the optional metrics, each by a regex; an ncu that has none of a regex's metrics fails the
 * list ("Failed to find metric regex:...", seen for the ldsm wavefronts on an H200 with ncu of
 * CUDA 13.0): explain then profiles again without it (ncu_drop_missing) */
#define OPTIONAL_REGEX                                                                                                 \
  "regex:sm__pipe_tensor_op_[hg]mma_cycles_active\\.avg\\.pct_of_peak_sustained_active,"                               \
  "regex:l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm\\.sum,"                                                    \
  "regex:smsp__sass_inst_executed_op_ldsm\\.sum"

#define STALL_PREFIX "smsp__average_warps_issue_stalled_"
#define STALL_SUFFIX "_per_issue_active.ratio"

const char *ncu_metric_name(ncu_metric m) { return m < NM_COUNT ? metric_tab[m].name : "?"; }
const char *ncu_metric_key(ncu_metric m) { return m < NM_COUNT ? metric_tab[m].key : "?"; }
int ncu_metric_from_key(const char *key) {
  for (int i = 0; i < NM_COUNT; i++)
    if (!strcmp(metric_tab[i].key, key)) return i;
  return -1;
}

int ncu_metric_optional(ncu_metric m) { return m >= NM_TENSOR_HMMA && m < NM_COUNT; }

void ncu_metrics_init(ncu_metrics *m) {
  memset(m, 0, sizeof *m);
  for (int i = 0; i < NM_COUNT; i++) m->v[i] = NAN;
}

char *ncu_metrics_arg(void) {
  dbuf b;
  dbuf_init(&b);
  for (int i = 0; i < NM_COUNT; i++)
    if (!ncu_metric_optional((ncu_metric)i)) dbuf_printf(&b, "%s,", metric_tab[i].name);
  dbuf_puts(&b, OPTIONAL_REGEX ",regex:" STALL_PREFIX ".*_per_issue_active\\.ratio");
  return dbuf_steal(&b);
}

int ncu_drop_missing(char *metrics, const char *output, char *name, size_t len) {
  static const char tag[] = "Failed to find metric ";
  const char *at = output ? strstr(output, tag) : NULL;
  if (!at || len == 0) return 0;
  at += sizeof tag - 1;
  size_t n = strcspn(at, " \t\r\n");
  if (n == 0 || n >= len) return 0;
  memcpy(name, at, n), name[n] = 0;
  /* the item of the list that is exactly that name */
  for (char *p = metrics; *p;) {
    char *end = strchr(p, ',');
    size_t k = end ? (size_t)(end - p) : strlen(p);
    if (k == n && !strncmp(p, name, n)) {
      if (end) memmove(p, end + 1, strlen(end + 1) + 1);
      else if (p > metrics) p[-1] = 0; /* the last: drop its comma too */
      else *p = 0;
      return 1;
    }
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

char *ncu_kernel_filter(const char *kernel) {
  const char *p = kernel && kernel[0] == '&' ? kernel + 1 : kernel ? kernel : "";
  while (*p == ' ') p++;
  size_t end = strcspn(p, "<( "); /* template arguments, parameters */
  const char *base = p;
  for (const char *q = p; q + 1 < p + end; q++) /* the last "::" before them: the namespace */
    if (q[0] == ':' && q[1] == ':') base = q + 2;
  dbuf b;
  dbuf_init(&b);
  dbuf_puts(&b, "regex:^");
  for (const char *q = base; q < p + end; q++) {
    if (strchr("\\.^$|?*+()[]{}", *q)) dbuf_printf(&b, "\\");
    dbuf_printf(&b, "%c", *q);
  }
  dbuf_puts(&b, "$");
  return dbuf_steal(&b);
}

/* ---- CSV ---- */

/* Split one CSV line (no newline) into fields; quotes and doubled quotes as in RFC 4180.
 * Fields are written into buf (NUL-separated); returns the field count, fields in f. */
static int csv_split(const char *s, size_t n, char *buf, char **f, int maxf) {
  int nf = 0;
  size_t i = 0, o = 0;
  while (nf < maxf) {
    f[nf++] = buf + o;
    if (i < n && s[i] == '"') {
      i++;
      while (i < n) {
        if (s[i] == '"' && i + 1 < n && s[i + 1] == '"') buf[o++] = '"', i += 2;
        else if (s[i] == '"') {
          i++;
          break;
        } else buf[o++] = s[i++];
      }
    }
    while (i < n && s[i] != ',') buf[o++] = s[i++];
    buf[o++] = 0;
    if (i >= n) break;
    i++; /* the comma */
  }
  return nf;
}

/* A value as ncu prints it: "127,776", "83.30", "n/a", "". NAN unless all of it is a number. */
static double csv_number(const char *s) {
  char tmp[64];
  size_t o = 0;
  for (; *s && o + 1 < sizeof tmp; s++)
    if (*s != ',' && *s != ' ') tmp[o++] = *s;
  tmp[o] = 0;
  if (!o || !strcmp(tmp, "n/a")) return NAN;
  char *end;
  double v = strtod(tmp, &end);
  return *end ? NAN : v;
}

/* Scale to ns and bytes from the units row ("usecond", "Kbyte", ...). */
static double unit_scale(const char *u) {
  static const struct {
    const char *u;
    double k;
  } tab[] = {{"ns", 1},        {"nsecond", 1},     {"us", 1e3},          {"usecond", 1e3}, {"ms", 1e6},
             {"msecond", 1e6}, {"s", 1e9},         {"second", 1e9},      {"Kbyte", 1e3},   {"KB", 1e3},
             {"Mbyte", 1e6},   {"MB", 1e6},        {"Gbyte", 1e9},       {"GB", 1e9},      {"Tbyte", 1e12},
             {"KiB", 1024.0},  {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if (!strcmp(u, tab[i].u)) return tab[i].k;
  /* other counts rescaled with decimal prefixes when --print-units base was not in force:
   * "Ksector", "Minst", "Gcycle" */
  if (u[0] && strchr("KMGT", u[0]) && u[1] >= 'a' && u[1] <= 'z')
    return u[0] == 'K' ? 1e3 : u[0] == 'M' ? 1e6 : u[0] == 'G' ? 1e9 : 1e12;
  return 1;
}

#define CSV_MAXF 4096

int ncu_parse_csv(const char *text, size_t n, int row, ncu_metrics *out, cterr *err) {
  ncu_metrics_init(out);
  char **hdr = xcalloc(CSV_MAXF, sizeof *hdr), **unit = xcalloc(CSV_MAXF, sizeof *unit);
  char **fld = xcalloc(CSV_MAXF, sizeof *fld);
  char *hbuf = NULL, *ubuf = NULL, *fbuf = NULL;
  int nh = 0, nu = 0, rows = 0, rc = -1, lineno = 0, hline = 0;
  const char *p = text, *end = text + n;
  while (p < end) {
    const char *e = memchr(p, '\n', (size_t)(end - p));
    size_t len = e ? (size_t)(e - p) : (size_t)(end - p);
    lineno++;
    if (len && p[len - 1] == '\r') len--;
    if (len && p[0] == '"') {
      if (!nh && len >= 4 && !strncmp(p, "\"ID\"", 4)) {
        hbuf = xmalloc(len + 1);
        nh = csv_split(p, len, hbuf, hdr, CSV_MAXF);
        hline = lineno;
      } else if (nh && !nu && !strncmp(p, "\"\"", 2)) {
        ubuf = xmalloc(len + 1);
        nu = csv_split(p, len, ubuf, unit, CSV_MAXF);
      } else if (nh && len > 1 && isdigit((unsigned char)p[1])) {
        if (rows++ == row) {
          fbuf = xmalloc(len + 1);
          int nf = csv_split(p, len, fbuf, fld, CSV_MAXF);
          if (nf < nh) {
            cterr_set(err, "ncu CSV line %d has %d fields, the header (line %d) has %d", lineno, nf, hline, nh);
            goto done;
          }
          for (int c = 0; c < nh; c++) {
            const char *h = hdr[c];
            if (!strcmp(h, "Kernel Name")) snprintf(out->kernel, sizeof out->kernel, "%s", fld[c]);
            double k = c < nu ? unit_scale(unit[c]) : 1, v = csv_number(fld[c]) * k;
            size_t hl = strlen(h), pl = strlen(STALL_PREFIX), sl = strlen(STALL_SUFFIX);
            if (hl > pl + sl && !strncmp(h, STALL_PREFIX, pl) && !strcmp(h + hl - sl, STALL_SUFFIX)) {
              if (out->nstalls < NCU_MAX_STALLS && isfinite(v)) {
                ncu_stall *s = &out->stall[out->nstalls++];
                snprintf(s->reason, sizeof s->reason, "%.*s", (int)(hl - pl - sl), h + pl);
                s->per_issue = v;
              }
              continue;
            }
            for (int m = 0; m < NM_COUNT; m++)
              if (!strcmp(h, metric_tab[m].name)) out->v[m] = v;
          }
        }
      }
    }
    if (!e) break;
    p = e + 1;
  }
  if (!nh) {
    cterr_set(err, "no ncu CSV header (a line starting with \"ID\") in %zu bytes of output", n);
    goto done;
  }
  if (rows == 0) {
    cterr_set(err, "ncu CSV has a header but no kernel rows: no launch matched the kernel filter");
    goto done;
  }
  if (row >= rows) {
    cterr_set(err, "ncu CSV has %d kernel rows; row %d asked for", rows, row);
    goto done;
  }
  rc = rows;
done:
  free(hdr), free(unit), free(fld), free(hbuf), free(ubuf), free(fbuf);
  return rc;
}

const char *ncu_diagnose(const char *text) {
  if (!text) return NULL;
  if (strstr(text, "ERR_NVGPUCTRPERM"))
    return "ERR_NVGPUCTRPERM: this user may not read the GPU performance counters (the driver's "
           "NVreg_RestrictProfilingToAdminUsers; run as root or set it to 0), or the machine is a "
           "virtual machine that does not expose them";
  if (strstr(text, "LibraryNotLoaded"))
    return "LibraryNotLoaded: ncu could not load its profiling library for this driver (ncu and "
           "the driver do not match, or counters are not exposed here)";
  if (strstr(text, "No kernels were profiled")) return "No kernels were profiled: the kernel filter matched no launch";
  if (strstr(text, "ERR_")) return "ncu reported an error (see its output)";
  return NULL;
}

double ncu_sectors_per_request(const ncu_metrics *m, int store) {
  double s = m->v[store ? NM_GST_SECTORS : NM_GLD_SECTORS], r = m->v[store ? NM_GST_REQUESTS : NM_GLD_REQUESTS];
  return r > 0 ? s / r : NAN;
}

double ncu_shared_ways(const ncu_metrics *m, int store) {
  double w = m->v[store ? NM_WAVES_ST : NM_WAVES_LD], i = m->v[store ? NM_SHINST_ST : NM_SHINST_LD];
  return i > 0 ? w / i : NAN;
}

const char *ncu_limiter(const ncu_metrics *m) {
  static const struct {
    ncu_metric k;
    const char *name;
  } lim[] = {{NM_LIM_REGS, "registers"},
             {NM_LIM_SMEM, "shared memory"},
             {NM_LIM_WARPS, "warps (block size)"},
             {NM_LIM_BLOCKS, "blocks per SM"}};
  double best = INFINITY;
  const char *name = "";
  for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
    if (isfinite(m->v[lim[i].k]) && m->v[lim[i].k] < best) best = m->v[lim[i].k], name = lim[i].name;
  return name;
}

int ncu_top_stalls(const ncu_metrics *m, int *idx, int max) {
  int n = 0;
  for (int k = 0; k < max; k++) {
    int best = -1;
    for (int i = 0; i < m->nstalls; i++) {
      if (!strcmp(m->stall[i].reason, "selected") || !(m->stall[i].per_issue > 0)) continue;
      int taken = 0;
      for (int j = 0; j < n; j++) taken |= idx[j] == i;
      if (!taken && (best < 0 || m->stall[i].per_issue > m->stall[best].per_issue)) best = i;
    }
    if (best < 0) break;
    idx[n++] = best;
  }
  return n;
}

const char *ncu_stall_label(const char *r) {
  static const struct {
    const char *reason, *label;
  } tab[] = {
      {"long_scoreboard", "memory dependency (long scoreboard: global/local loads)"},
      {"short_scoreboard", "shared-memory dependency (short scoreboard)"},
      {"barrier", "synchronization (__syncthreads barrier)"},
      {"mio_throttle", "memory throttle (MIO queue: shared memory)"},
      {"lg_throttle", "memory throttle (LSU queue: global/local)"},
      {"drain", "drain (stores draining at exit)"},
      {"wait", "execution dependency (fixed latency)"},
      {"math_pipe_throttle", "math pipe throttle"},
      {"not_selected", "not selected (other warps issued)"},
      {"dispatch_stall", "dispatch stall"},
      {"membar", "memory barrier"},
      {"branch_resolving", "branch resolving"},
      {"no_instruction", "no instruction (instruction cache)"},
      {"imc_miss", "constant cache miss"},
      {"tex_throttle", "texture throttle"},
      {"sleeping", "sleeping"},
  };
  for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
    if (!strcmp(r, tab[i].reason)) return tab[i].label;
  return r;
}

void ncu_reading(const ncu_metrics *m, dbuf *o) {
  double dram = m->v[NM_DRAM_PCT], sm = m->v[NM_SM_PCT];
  /* speed of light: which unit is fed, and how far from its peak */
  if (isfinite(dram) && isfinite(sm)) {
    if (dram >= 60 && dram >= sm) dbuf_printf(o, "memory-bound at %.0f %% of DRAM peak", dram);
    else if (sm >= 60 && sm > dram) dbuf_printf(o, "compute-bound at %.0f %% of SM peak", sm);
    else dbuf_printf(o, "latency-bound: DRAM %.0f %%, SM %.0f %% of peak (neither saturated)", dram, sm);
  } else {
    dbuf_puts(o, "no throughput counters");
  }
  /* coalescing: 32 lanes x 4 bytes = 4 sectors of 32 bytes; 16-byte vectors need 16 */
  double ld = ncu_sectors_per_request(m, 0), st = ncu_sectors_per_request(m, 1);
  if (isfinite(ld) || isfinite(st)) {
    int bad_ld = ld > 16.5, bad_st = st > 16.5;
    if (bad_ld || bad_st)
      dbuf_printf(o, "; uncoalesced %s: %.1f sectors per request (%.1f %s; 4 is a coalesced warp of floats)",
                  bad_st && bad_ld ? "loads and stores"
                  : bad_st         ? "stores"
                                   : "loads",
                  bad_st ? st : ld, bad_st ? ld : st, bad_st ? "for loads" : "for stores");
    else dbuf_printf(o, "; coalesced (%.1f ld / %.1f st sectors per request)", ld, st);
  }
  /* shared memory: n-way conflicts = wavefronts per shared instruction */
  double wl = ncu_shared_ways(m, 0), ws = ncu_shared_ways(m, 1);
  if (isfinite(wl) || isfinite(ws)) {
    int cl = wl >= 1.5, cs = ws >= 1.5;
    if (cl || cs) {
      if (cl) dbuf_printf(o, "; %.0f-way bank conflicts on shared loads", wl);
      if (cs) dbuf_printf(o, "%s %.0f-way bank conflicts on shared stores", cl ? "," : ";", ws);
    } else {
      dbuf_puts(o, "; no bank conflicts");
    }
  } else if (m->v[NM_SHINST_LD] == 0 && m->v[NM_SHINST_ST] == 0 && !(m->v[NM_SHINST_LDSM] > 0)) {
    dbuf_puts(o, "; no shared-memory instructions"); /* TMA and wgmma reach it without them */
  }
  /* ldmatrix: 4 wavefronts per x4 instruction without conflicts (four 8x8 matrices of 128 bytes) */
  double lw = m->v[NM_WAVES_LDSM], li = m->v[NM_SHINST_LDSM];
  if (li > 0 && isfinite(lw)) {
    if (lw / li > 4.5) dbuf_printf(o, "; ldmatrix %.1f wavefronts per instruction (4 without conflicts)", lw / li);
    else dbuf_puts(o, "; ldmatrix without conflicts");
  }
  /* occupancy */
  double oa = m->v[NM_OCC_ACHIEVED], ot = m->v[NM_OCC_THEORY];
  if (isfinite(oa) && isfinite(ot)) {
    dbuf_printf(o, "; occupancy %.0f %% (theory %.0f %%", oa, ot);
    if (ot < 99.5) dbuf_printf(o, ", limited by %s", ncu_limiter(m));
    dbuf_puts(o, ")");
  }
  /* the tensor pipes, where the kernel uses them */
  double th = m->v[NM_TENSOR_HMMA], tg = m->v[NM_TENSOR_GMMA];
  /* an ncu without the GMMA counter (CUDA 13.0's on the H200) counts wgmma's work in the HMMA one:
   * 76 % there for a wgmma kernel at 68 % of the dense BF16 peak, so it cannot name the path */
  if (isfinite(tg) && tg >= 1) dbuf_printf(o, "; tensor pipe (wgmma) %.0f %% of peak", tg);
  else if (isfinite(th) && th >= 1)
    dbuf_printf(o, "; tensor pipe (%s) %.0f %% of peak", isfinite(tg) ? "mma.sync" : "HMMA counter", th);
  double sp =
      (isfinite(m->v[NM_LOCAL_LD]) ? m->v[NM_LOCAL_LD] : 0) + (isfinite(m->v[NM_LOCAL_ST]) ? m->v[NM_LOCAL_ST] : 0);
  if (sp > 0) dbuf_printf(o, "; register spilling: %.0f local-memory sectors", sp);
  int top[2], nt = ncu_top_stalls(m, top, 2);
  for (int i = 0; i < nt; i++)
    dbuf_printf(o, "%s%s %.1f", i ? ", " : "; stalls: ", ncu_stall_label(m->stall[top[i]].reason),
                m->stall[top[i]].per_issue);
}
