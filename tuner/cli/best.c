/* best: `cutune best` — the Pareto front per GPU, space and problem, computed from the stores
 * (never measuring anything). See the usage text. */
#include "ship_cmds.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ship/pareto.h"
#include "engine/job.h"
#include "ship/ship_data.h"
#include "ship/ship_space.h"
#include "space/space.h"

static const char best_usage[] =
    "usage: cutune best [RESULTS...] [options]\n"
    "\n"
    "Print, per GPU, space and problem, the configurations on the Pareto front of the\n"
    "objectives (none of them is beaten in every objective by another) with their figures, and\n"
    "the fastest one. The front is computed from the records: running best again measures\n"
    "nothing. RESULTS are cutune stores (.jsonl), folders of them (default: results), or Kernel\n"
    "Tuner cache files (.json, .json.gz).\n"
    "\n"
    "Objectives: those of --space's file (objectives = { \"time\", \"energy\", {\"regs\", \"min\"} }),\n"
    "or --objectives, or else time, plus energy where the records carry energy figures. Energy\n"
    "is measured in a second pass for the configurations near the time front only (see\n"
    "'cutune run --help', --energy-top): configurations without a figure for an objective are\n"
    "not on the front.\n"
    "\n"
    "options:\n"
    "  --space FILE.lua     the space: its objectives and name; only records of its current template\n"
    "                       and of configurations it still has (as cutune header ships them)\n"
    "  --objectives LIST    e.g. time,energy or time,regs:min,gbps:max (field[:min|max], default min);\n"
    "                       fields: time energy t_min t_mean gbps copy_share gflops cublas_share regs smem_static\n"
    "                       local_bytes spill_stores block_threads occupancy compile_ms ...\n"
    "  --kt-problem NAMES   names for a Kernel Tuner cache's problem_size, e.g. W,H (default: size)\n"
    "  --json               one JSON document for scripts instead of the tables\n"
    "  --kernel-path DIR    look for the space's template in DIR too (as cutune run;\n"
    "                       $CUTUNE_KERNEL_PATH)\n"
    "  -h, --help           this text\n"
    "\n"
    "exit status: 0 with a front printed, 1 when the inputs cannot be read or hold no successful\n"
    "record, 2 for a bad command line.\n";

typedef struct group {
  const record **r;
  size_t n, cap;
} group;

static int cmp_rec(const void *a, const void *b) {
  const record *x = *(const record *const *)a, *y = *(const record *const *)b;
  int c = strcmp(x->device_name ? x->device_name : "", y->device_name ? y->device_name : "");
  if (!c) c = strcmp(x->space, y->space);
  if (!c) c = strcmp(x->problem, y->problem);
  if (!c) c = (x->t_median > y->t_median) - (x->t_median < y->t_median);
  if (!c) c = strcmp(x->config, y->config);
  return c;
}

static void print_group(const record *const *r, size_t n, const objective *obj, int nobj, int json, int first) {
  int *front = xcalloc(n + 1, sizeof(int));
  size_t nf = pareto_front(r, n, obj, nobj, front);
  const record *fast = NULL;
  for (size_t i = 0; i < n; i++)
    if (record_timed(r[i]) && (!fast || r[i]->t_median < fast->t_median)) fast = r[i];
  const char *dev = r[0]->device_name ? r[0]->device_name : "unknown device";
  if (json) {
    printf("%s\n  {\"device\": ", first ? "" : ",");
    dbuf b;
    dbuf_init(&b);
    dbuf_json_str(&b, dev);
    dbuf_puts(&b, ", \"space\": ");
    dbuf_json_str(&b, r[0]->space);
    dbuf_puts(&b, ", \"problem\": ");
    dbuf_json_str(&b, r[0]->problem);
    dbuf_printf(&b, ", \"records\": %zu, \"objectives\": [", n);
    for (int k = 0; k < nobj; k++) {
      dbuf_printf(&b, "%s{\"name\": ", k ? ", " : "");
      dbuf_json_str(&b, obj[k].name);
      dbuf_printf(&b, ", \"direction\": \"%s\"}", obj[k].maximise ? "max" : "min");
    }
    dbuf_puts(&b, "], \"fastest\": ");
    if (fast) dbuf_json_str(&b, fast->config);
    else dbuf_puts(&b, "null");
    dbuf_puts(&b, ", \"front\": [");
    int k0 = 1;
    for (size_t i = 0; i < n; i++) {
      if (!front[i]) continue;
      dbuf_printf(&b, "%s\n    {\"config\": ", k0 ? "" : ",");
      k0 = 0;
      dbuf_json_str(&b, r[i]->config);
      for (int k = 0; k < nobj; k++) {
        dbuf_puts(&b, ", ");
        dbuf_json_str(&b, obj[k].name);
        dbuf_puts(&b, ": ");
        dbuf_json_num(&b, record_field(r[i], obj[k].name));
      }
      dbuf_puts(&b, "}");
    }
    dbuf_puts(&b, "]}");
    fputs(b.data, stdout);
    dbuf_free(&b);
  } else {
    printf("\n== %s / %s / %s: %zu records, %zu on the front of", dev, r[0]->space, r[0]->problem, n, nf);
    for (int k = 0; k < nobj; k++) printf("%s %s (%s)", k ? "," : "", obj[k].name, obj[k].maximise ? "max" : "min");
    printf(" ==\n");
    if (fast) printf("fastest: %s  %.4f ms\n", fast->config, fast->t_median);
    for (int k = 0; k < nobj; k++) printf("%14s", obj[k].name);
    printf("  configuration\n");
    for (size_t i = 0; i < n; i++) {
      if (!front[i]) continue;
      for (int k = 0; k < nobj; k++) printf("%14.6g", record_field(r[i], obj[k].name));
      printf("  %s%s\n", r[i]->config, r[i] == fast ? "  (fastest)" : "");
    }
    if (!nf)
      printf(
          "(no record has a figure for every objective: energy is measured by cutune run for the\n"
          " configurations near the time front of a space that lists it)\n");
  }
  free(front);
}

int best_main(int argc, char **argv) {
  enum { O_SPACE = 256, O_OBJ, O_KT, O_JSON, O_KPATH };
  static const struct option longs[] = {{"space", required_argument, 0, O_SPACE},
                                        {"objectives", required_argument, 0, O_OBJ},
                                        {"kt-problem", required_argument, 0, O_KT},
                                        {"json", no_argument, 0, O_JSON},
                                        {"kernel-path", required_argument, 0, O_KPATH},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  const char *space_path = NULL, *objtext = NULL, *kt = NULL;
  int json = 0, c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
    switch (c) {
    case O_SPACE: space_path = optarg; break;
    case O_OBJ: objtext = optarg; break;
    case O_KT: kt = optarg; break;
    case O_JSON: json = 1; break;
    case O_KPATH: space_kernel_path_add(optarg); break;
    case 'h': fputs(best_usage, stdout); return 0;
    default: fprintf(stderr, "cutune best: see 'cutune best --help'\n"); return 2;
    }
  }
  cterr err = {0};
  objective obj[PARETO_MAX_OBJ];
  int nobj = 0, rc = 1;
  if (objtext && objectives_parse(objtext, obj, &nobj, &err) < 0) {
    fprintf(stderr, "cutune best: --objectives: %s\n", err.msg);
    return 2;
  }
  space *sp = NULL;
  ship_data *d = NULL;
  char *ktcopy = NULL;
  dbuf warn;
  dbuf_init(&warn);
  ship_opts so = {0};
  const char *ktv[16], *pnames[CS_MAX_PARAMS];
  char thash[33];
  char(*chash)[33] = NULL;
  ship_checks checks;
  if (kt) {
    ktcopy = xstrdup(kt);
    char *save = NULL;
    for (char *t = strtok_r(ktcopy, ",", &save); t && so.nkt_vars < 16; t = strtok_r(NULL, ",", &save))
      ktv[so.nkt_vars++] = t;
    so.kt_vars = ktv;
  }
  if (space_path) {
    if (space_load(space_path, &sp, &err) < 0) goto done;
    /* as `cutune header` ships: records of the current template, configurations the space has */
    if (job_template_hash(sp, thash, &err) < 0) goto done;
    ship_opts_for_space(&so, sp, thash, pnames);
    /* ... and of the check each problem has now */
    if (job_space_check_hashes(sp, &chash, &err) < 0) goto done;
    checks = (ship_checks){sp, (const char(*)[33])chash};
    ship_opts_check(&so, &checks);
    if (!objtext)
      for (int i = 0; i < space_nobjectives(sp) && nobj < PARETO_MAX_OBJ; i++, nobj++) {
        snprintf(obj[nobj].name, sizeof obj[nobj].name, "%s", space_objective(sp, i));
        obj[nobj].maximise = space_objective_max(sp, i);
      }
  }
  so.any_space = !space_path; /* without a space: every space of the inputs, each its own */
  d = ship_data_new(&so);
  if (optind >= argc) {
    if (ship_data_add(d, "results", &warn, &err) < 0) goto done;
  }
  for (int i = optind; i < argc; i++)
    if (ship_data_add(d, argv[i], &warn, &err) < 0) goto done;
  if (warn.len) fputs(warn.data, stderr);
  size_t n = ship_count(d);
  if (!n) {
    cterr_set(&err, "no records in the inputs");
    goto done;
  }
  const record **all = xcalloc(n, sizeof(record *));
  for (size_t i = 0; i < n; i++) all[i] = ship_get(d, i);
  qsort(all, n, sizeof *all, cmp_rec);
  if (json) printf("[");
  for (size_t i = 0, first = 1; i < n; first = 0) {
    size_t j = i + 1;
    while (j < n && !strcmp(all[j]->problem, all[i]->problem) && !strcmp(all[j]->space, all[i]->space) &&
           !strcmp(all[j]->device_name ? all[j]->device_name : "", all[i]->device_name ? all[i]->device_name : ""))
      j++;
    objective o2[PARETO_MAX_OBJ];
    int n2 = nobj;
    memcpy(o2, obj, sizeof obj);
    if (!n2) { /* time, and energy where there are figures */
      snprintf(o2[n2].name, sizeof o2[n2].name, "time"), o2[n2++].maximise = 0;
      for (size_t k = i; k < j; k++)
        if (isfinite(all[k]->energy_mj)) {
          snprintf(o2[n2].name, sizeof o2[n2].name, "energy"), o2[n2++].maximise = 0;
          break;
        }
    }
    print_group(all + i, j - i, o2, n2, json, (int)first);
    i = j;
  }
  if (json) printf("\n]\n");
  free(all);
  rc = 0;
done:
  if (rc) fprintf(stderr, "cutune best: %s\n", err.msg);
  ship_data_free(d);
  space_free(sp);
  dbuf_free(&warn);
  free(ktcopy);
  free(chash);
  return rc;
}
