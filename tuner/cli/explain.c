/* explain: `cutune explain` — see explain.h and the --help text below. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "explain_int.h"
#include "explain/explain_store.h"
#include "explain/ncu.h"
#include "explain/sanitize.h"
#include "explain/tool_run.h"
#include "engine/job.h"
#include "profile_one.h"
#include "space/space.h"
#include "store/record_json.h"
#include "store/store.h"

static const char help[] =
    "usage: cutune explain SPACE.lua [options]\n"
    "\n"
    "Why the winner wins: runs the top configurations of a finished run (a store and its space)\n"
    "under Nsight Compute (ncu) in a GPU worker, one configuration per process, and prints their\n"
    "counters side by side with a one-line reading each: memory- or compute-bound and how close\n"
    "to the peak, coalescing (sectors per request), shared-memory bank conflicts, occupancy and its\n"
    "limiter, register spilling, the top warp-stall reasons. It also times each configuration in\n"
    "cutune (back to back, and isolated: single launches after a clean L2, which is what ncu's\n"
    "gpu__time_duration measures) and shows both beside ncu's figure.\n"
    "\n"
    "Profiled: the top N of the problem, the best configuration of each value of the parameter that\n"
    "mattered most, and every --config. Results go beside the store, in <store>.explain.jsonl, where\n"
    "`cutune report` and `cutune header` read them.\n"
    "\n"
    "options:\n"
    "  --results DIR        where the stores are (default results); the store is DIR/*/<space>.jsonl\n"
    "  --store FILE         the store itself (when DIR holds more than one device)\n"
    "  --problem P          problem index or sizes, in any order and as few as tell it apart\n"
    "                       (\"N=8192,M=8192\", \"M=4096\"; default: the space's first problem)\n"
    "  --top N              how many of the best to profile (default 3; 0: none)\n"
    "  --no-param-values    do not add the best of each value of the parameter that mattered most\n"
    "  --config KEY         also this configuration; KEY may name only some parameters\n"
    "                       (TILE=32,PAD=0): the best measured configuration that matches is taken\n"
    "  --ncu PATH           ncu to use (default: ncu on PATH, then /usr/local/cuda/bin)\n"
    "  --no-profile         skip ncu (with --sanitize: only the sanitizers)\n"
    "  --sanitize           also run compute-sanitizer memcheck, initcheck and (where the kernel uses\n"
    "                       shared memory) racecheck on each configuration and record the verdicts;\n"
    "                       `cutune header` never ships a flagged configuration\n"
    "  --sanitize-problem P the problem the sanitizers run on (default: the smallest; they slow a\n"
    "                       kernel 10-100x, and ragged sizes are where out-of-bounds accesses show)\n"
    "  --sanitizer PATH     compute-sanitizer to use\n"
    "  --tool-timeout S     seconds per tool run before it is killed (default 600)\n"
    "  --device N           GPU ordinal (default 0)\n"
    "  --kernel-path DIR    look for the space's template in DIR too (as cutune run;\n"
    "                       $CUTUNE_KERNEL_PATH)\n"
    "\n"
    "exit status: 0 done; 1 error; 2 usage; 3 ncu is not installed or cannot read the GPU's\n"
    "performance counters here (ERR_NVGPUCTRPERM, LibraryNotLoaded: the message says which; the\n"
    "rest of cutune is unaffected); 4 --sanitize flagged a configuration.\n"
    "See docs/EXPLAIN.md for what each metric means and how to read the table.\n";

#define MAX_GIVEN 16

typedef struct xopts {
  const char *space_path, *results_dir, *store_path, *problem, *ncu, *sanitizer, *sanitize_problem;
  const char *given[MAX_GIVEN];
  int ngiven, top, param_values, sanitize, no_profile;
  long device;
  double tool_timeout;
} xopts;

/* ---- choosing ---- */

static int by_time(const void *a, const void *b) {
  const record *x = *(const record *const *)a, *y = *(const record *const *)b;
  return (x->t_median > y->t_median) - (x->t_median < y->t_median);
}

/* Newest usable record per configuration on the problem, sorted by time. */
static const record **latest_ok(const store *st, const char *problem, size_t *n) {
  size_t total = store_count(st), k = 0;
  const record **v = xcalloc(total ? total : 1, sizeof *v);
  for (size_t i = total; i-- > 0;) {
    const record *r = store_get(st, i);
    if (!r->problem || strcmp(r->problem, problem) || !r->config) continue;
    int seen = 0;
    for (size_t j = 0; j < k && !seen; j++) seen = !strcmp(v[j]->config, r->config);
    if (seen) continue;
    v[k++] = r;
  }
  size_t m = 0;
  for (size_t i = 0; i < k; i++)
    if (record_timed(v[i])) v[m++] = v[i];
  qsort(v, m, sizeof *v, by_time);
  *n = m;
  return v;
}

static const char *param_of(const record *r, const char *name) {
  for (int i = 0; i < r->nparams; i++)
    if (r->pname[i] && !strcmp(r->pname[i], name)) return r->pvalue[i];
  return NULL;
}

/* Does a full key "A=1,B=2,C=3" have every NAME=VALUE of the partial key "B=2,A=1"? */
static int key_matches(const char *full, const char *partial) {
  char *p = xstrdup(partial), *save = NULL;
  int ok = 1;
  for (char *t = strtok_r(p, ",", &save); t && ok; t = strtok_r(NULL, ",", &save)) {
    size_t n = strlen(t);
    const char *f = full;
    ok = 0;
    while (f && *f && !ok) {
      ok = !strncmp(f, t, n) && (f[n] == ',' || f[n] == 0);
      f = strchr(f, ',');
      if (f) f++;
    }
  }
  free(p);
  return ok;
}

static int add_pick(pick *pk, int *n, const char *config, const record *rec, const char *label) {
  for (int i = 0; i < *n; i++)
    if (!strcmp(pk[i].config, config)) {
      size_t l = strlen(pk[i].label);
      snprintf(pk[i].label + l, sizeof pk[i].label - l, ", %s", label);
      return 0;
    }
  if (*n >= MAX_PICKS) return -1;
  pick *p = &pk[(*n)++];
  memset(p, 0, sizeof *p);
  p->config = xstrdup(config);
  p->rec = rec;
  p->median_ms = p->isolated_ms = NAN;
  ncu_metrics_init(&p->m);
  snprintf(p->label, sizeof p->label, "%s", label);
  return 0;
}

static int choose(const xopts *o, const space *s, const record **ok, size_t nok, pick *pk, int *n, cterr *err) {
  char label[96];
  for (int i = 0; i < o->top && (size_t)i < nok; i++) {
    snprintf(label, sizeof label, "top %d", i + 1);
    add_pick(pk, n, ok[i]->config, ok[i], label);
  }
  if (o->param_values && nok > 0) {
    /* the parameter whose best-per-value times spread most */
    const record *r0 = ok[0];
    int bestp = -1;
    double bests = 1;
    for (int p = 0; p < r0->nparams; p++) {
      double lo = INFINITY, hi = 0;
      for (size_t i = 0; i < nok; i++) {
        const char *v = param_of(ok[i], r0->pname[p]);
        int first = 1; /* ok is sorted: the first record with this value is its best */
        for (size_t j = 0; j < i && first; j++) {
          const char *w = param_of(ok[j], r0->pname[p]);
          first = !(v && w && !strcmp(v, w));
        }
        if (!first) continue;
        if (ok[i]->t_median < lo) lo = ok[i]->t_median;
        if (ok[i]->t_median > hi) hi = ok[i]->t_median;
      }
      if (lo > 0 && hi / lo > bests) bests = hi / lo, bestp = p;
    }
    if (bestp >= 0) {
      const char *name = r0->pname[bestp];
      for (size_t i = 0; i < nok; i++) {
        const char *v = param_of(ok[i], name);
        int first = 1;
        for (size_t j = 0; j < i && first; j++) {
          const char *w = param_of(ok[j], name);
          first = !(v && w && !strcmp(v, w));
        }
        if (!first || !v) continue;
        snprintf(label, sizeof label, "best %s=%s", name, v);
        add_pick(pk, n, ok[i]->config, ok[i], label);
      }
    }
  }
  for (int g = 0; g < o->ngiven; g++) {
    const record *hit = NULL;
    for (size_t i = 0; i < nok && !hit; i++)
      if (key_matches(ok[i]->config, o->given[g])) hit = ok[i];
    char *key = NULL;
    if (hit) {
      key = xstrdup(hit->config);
    } else { /* never measured: the first valid configuration that matches */
      const configset *cs = space_configs(s);
      for (size_t i = 0; i < configset_count(cs) && !key; i++) {
        char *k = configset_row_key(cs, configset_row(cs, i));
        if (key_matches(k, o->given[g])) key = k;
        else free(k);
      }
    }
    if (!key) return cterr_set(err, "--config %s: no valid configuration of %s matches", o->given[g], space_path(s));
    snprintf(label, sizeof label, "given %s", o->given[g]);
    add_pick(pk, n, key, hit, label);
    free(key);
  }
  return 0;
}

/* ---- the store ---- */

char *explain_find_store(const char *results_dir, const char *store_path, const space *s, cterr *err) {
  if (store_path) return xstrdup(store_path);
  char *slug = slugify(space_name(s)), *file = xasprintf("%s.jsonl", slug), *found = NULL;
  int count = 0;
  DIR *d = opendir(results_dir);
  struct dirent *de;
  while (d && (de = readdir(d))) {
    if (de->d_name[0] == '.') continue;
    char *dir = path_join(results_dir, de->d_name), *p = path_join(dir, file);
    free(dir);
    if (store_exists(p)) { /* its plain file or only its compressed part (store.h) */
      count++;
      if (!found) found = p;
      else free(p);
    } else {
      free(p);
    }
  }
  if (d) closedir(d);
  if (count != 1) {
    if (count) cterr_set(err, "%d stores named %s under %s: choose one with --store", count, file, results_dir);
    else
      cterr_set(err, "no store %s under %s/*/ (run `cutune run %s` first, or give --store)", file, results_dir,
                space_path(s));
    free(found);
    found = NULL;
  }
  free(slug), free(file);
  return found;
}

/* ---- running the tools ---- */

static void tail_of(const dbuf *b, int lines, dbuf *out) {
  size_t i = b->len;
  while (i > 0 && lines > 0)
    if (b->data[--i] == '\n' && i + 1 < b->len) lines--;
  dbuf_append(out, b->data + i, b->len - i);
}

/* cutune's own figures: a plain __profile-one run (back-to-back median, isolated median). */
static void time_plain(const xopts *o, const char *self, const char *pkey, pick *p) {
  char dev[16], *argv[16];
  snprintf(dev, sizeof dev, "%ld", o->device);
  int a = 0;
  argv[a++] = (char *)self, argv[a++] = "__profile-one", argv[a++] = (char *)o->space_path, argv[a++] = p->config;
  argv[a++] = (char *)pkey, argv[a++] = "--samples", argv[a++] = "30", argv[a++] = "--isolated", argv[a++] = "21";
  argv[a++] = "--device", argv[a++] = dev, argv[a] = NULL;
  dbuf out;
  dbuf_init(&out);
  int st;
  char how[256];
  cterr err;
  if (tool_run(argv, o->tool_timeout, &out, &st, how, sizeof how, &err) == 0) {
    const char *l = strstr(out.data, PROFILE_ONE_TAG);
    record r;
    if (l &&
        record_from_json_n(l + strlen(PROFILE_ONE_TAG), strcspn(l + strlen(PROFILE_ONE_TAG), "\n"), &r, &err) == 0) {
      p->median_ms = r.t_median, p->isolated_ms = r.t_isolated;
      record_free(&r);
    } else {
      dbuf t;
      dbuf_init(&t);
      tail_of(&out, 5, &t);
      fprintf(stderr, "explain: timing %s in cutune failed (%s):\n%s\n", p->config, how, t.data);
      dbuf_free(&t);
    }
  }
  dbuf_free(&out);
}

/* ncu on one configuration. 0 done (p->have_m says whether counters came back), 1 counters
 * are unavailable on this machine (diag says why), -1 error (err). */
static int profile(const xopts *o, const char *ncu, const char *self, const space *s, const char *pkey, pick *p,
                   const char **diag, cterr *err) {
  char *metrics = ncu_metrics_arg(), *kfilter = ncu_kernel_filter(space_kernel(s));
  char dev[16], *argv[40];
  snprintf(dev, sizeof dev, "%ld", o->device);
  /* skip the reference's launch when it is the same function, then the checked launch */
  const char *skip = !strcmp(space_ref_kernel(s), space_kernel(s)) ? "2" : "1";
  int a = 0;
  argv[a++] = (char *)ncu, argv[a++] = "--clock-control", argv[a++] = "none", argv[a++] = "--csv";
  argv[a++] = "--page", argv[a++] = "raw", argv[a++] = "--print-units", argv[a++] = "base";
  argv[a++] = "--target-processes", argv[a++] = "all", argv[a++] = "-k", argv[a++] = kfilter;
  argv[a++] = "--launch-skip", argv[a++] = (char *)skip, argv[a++] = "--launch-count", argv[a++] = "1";
  argv[a++] = "--metrics", argv[a++] = metrics;
  argv[a++] = (char *)self, argv[a++] = "__profile-one", argv[a++] = (char *)o->space_path, argv[a++] = p->config;
  argv[a++] = (char *)pkey, argv[a++] = "--samples", argv[a++] = "2", argv[a++] = "--device", argv[a++] = dev;
  argv[a] = NULL;
  dbuf out;
  dbuf_init(&out);
  int st, rc = 0;
  char how[256], missing[256];
  cterr perr;
  for (int tries = 0;; tries++) {
    dbuf_reset(&out);
    if (tool_run(argv, o->tool_timeout, &out, &st, how, sizeof how, err) != 0) {
      rc = -1;
      goto done;
    }
    if (ncu_parse_csv(out.data, out.len, 0, &p->m, &perr) >= 1) {
      p->have_m = 1;
      goto done;
    }
    /* a metric this ncu lacks fails the whole list: again without it (a few at most) */
    if (tries >= 4 || !ncu_drop_missing(metrics, out.data, missing, sizeof missing)) break;
    fprintf(stderr, "explain: this ncu has no metric %s: profiling %s again without it\n", missing, p->config);
  }
  if ((*diag = ncu_diagnose(out.data)) && strncmp(*diag, "No kernels", 10) && strncmp(*diag, "ncu reported", 12)) {
    rc = 1;
    goto done;
  }
  dbuf t;
  dbuf_init(&t);
  tail_of(&out, 8, &t);
  fprintf(stderr, "explain: ncu on %s gave no counters (ncu %s): %s\n%s\n", p->config, how, perr.msg, t.data);
  dbuf_free(&t);
done:
  dbuf_free(&out);
  free(metrics), free(kfilter);
  return rc;
}

static void sanitize(const xopts *o, const char *tool, const char *self, const char *pkey, pick *p, san_tool t) {
  const char *opt[16];
  int no = san_options(t, opt, 16), a = 0;
  char dev[16], *argv[40];
  snprintf(dev, sizeof dev, "%ld", o->device);
  argv[a++] = (char *)tool;
  for (int i = 0; i < no; i++) argv[a++] = (char *)opt[i];
  argv[a++] = (char *)self, argv[a++] = "__profile-one", argv[a++] = (char *)o->space_path, argv[a++] = p->config;
  argv[a++] = (char *)pkey, argv[a++] = "--samples", argv[a++] = "1", argv[a++] = "--device", argv[a++] = dev;
  argv[a] = NULL;
  dbuf out;
  dbuf_init(&out);
  int st = -1;
  char how[256];
  cterr err;
  /* The worker leaves a freed gap after each buffer (gpu_worker.c): a write past a buffer's end
   * then lands outside every allocation, where memcheck sees it, instead of in the next buffer
   * (small buffers are placed back to back). Seen on the H200: no gap or a 2 MiB one (placed
   * elsewhere) and memcheck reports 0 errors for a write one element past the end; 4 KiB or
   * 256 KiB and it reports the invalid write. */
  setenv("CUTUNE_GUARD_BYTES", "262144", 1);
  if (tool_run(argv, o->tool_timeout, &out, &st, how, sizeof how, &err) != 0) dbuf_puts(&out, err.msg);
  unsetenv("CUTUNE_GUARD_BYTES");
  san_parse(t, out.data, st, &p->v[t]);
  p->ran[t] = 1;
  dbuf_free(&out);
}

/* ---- main ---- */

static int parse_opts(int argc, char **argv, xopts *o, cterr *err) {
  memset(o, 0, sizeof *o);
  o->results_dir = "results";
  o->top = 3;
  o->param_values = 1;
  o->tool_timeout = 600;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                                                                         \
  if (!v) return cterr_set(err, "%s needs a value", a);                                                                \
  i++
    if (!strcmp(a, "--kernel-path")) {
      NEED();
      space_kernel_path_add(v);
    } else if (!strcmp(a, "--results")) {
      NEED();
      o->results_dir = v;
    } else if (!strcmp(a, "--store")) {
      NEED();
      o->store_path = v;
    } else if (!strcmp(a, "--problem")) {
      NEED();
      o->problem = v;
    } else if (!strcmp(a, "--top")) {
      long t;
      NEED();
      if (parse_long(v, &t, "--top", err)) return -1;
      o->top = (int)t;
    } else if (!strcmp(a, "--no-param-values")) o->param_values = 0;
    else if (!strcmp(a, "--config")) {
      NEED();
      if (o->ngiven >= MAX_GIVEN) return cterr_set(err, "at most %d --config", MAX_GIVEN);
      o->given[o->ngiven++] = v;
    } else if (!strcmp(a, "--ncu")) {
      NEED();
      o->ncu = v;
    } else if (!strcmp(a, "--no-profile")) o->no_profile = 1;
    else if (!strcmp(a, "--sanitize")) o->sanitize = 1;
    else if (!strcmp(a, "--sanitize-problem")) {
      NEED();
      o->sanitize_problem = v;
    } else if (!strcmp(a, "--sanitizer")) {
      NEED();
      o->sanitizer = v;
    } else if (!strcmp(a, "--tool-timeout")) {
      NEED();
      if (parse_double(v, &o->tool_timeout, "--tool-timeout", err)) return -1;
    } else if (!strcmp(a, "--device")) {
      NEED();
      if (parse_long(v, &o->device, "--device", err)) return -1;
    } else if (a[0] == '-') return cterr_set(err, "unknown option '%s' (see 'cutune explain --help')", a);
    else if (!o->space_path) o->space_path = a;
    else return cterr_set(err, "one space only ('%s' and '%s')", o->space_path, a);
#undef NEED
  }
  if (!o->space_path) return cterr_set(err, "no space given (usage: cutune explain SPACE.lua [options])");
  return 0;
}

/* The problem with the fewest bytes (the sanitizers' default). */
static int smallest_problem(space *s) {
  int best = 0;
  double bb = INFINITY;
  for (int p = 0; p < space_nproblems(s); p++) {
    cterr e;
    double b = space_bytes(s, p, &e);
    if (isfinite(b) && b < bb) bb = b, best = p;
  }
  return best;
}

static int store_entries(const char *store_path, const pick *p, const char *pkey, const char *spkey, const char *thash,
                         int profiled) {
  cterr err;
  char *now = iso8601_now();
  int rc = 0;
  explain_entry e;
  memset(&e, 0, sizeof e);
  e.config = p->config, e.time = now, e.template_hash = thash[0] ? (char *)thash : NULL;
  if (profiled && p->have_m) {
    dbuf r;
    dbuf_init(&r);
    ncu_reading(&p->m, &r);
    e.kind = EXPLAIN_NCU, e.problem = (char *)pkey, e.m = p->m, e.reading = r.data;
    e.cutune_median_ms = p->median_ms, e.cutune_isolated_ms = p->isolated_ms;
    if (explain_append(store_path, &e, &err) != 0) fprintf(stderr, "explain: %s\n", err.msg), rc = -1;
    dbuf_free(&r);
  }
  for (int t = 0; t < SAN_NTOOLS && !profiled; t++) {
    if (!p->ran[t]) continue;
    e.kind = EXPLAIN_SANITIZE, e.problem = (char *)spkey, e.v = p->v[t];
    if (explain_append(store_path, &e, &err) != 0) fprintf(stderr, "explain: %s\n", err.msg), rc = -1;
  }
  free(now);
  return rc;
}

int explain_main(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(help, stdout);
      return 0;
    }
  xopts o;
  cterr err = {0};
  if (parse_opts(argc, argv, &o, &err) != 0) {
    fprintf(stderr, "cutune explain: %s\n", err.msg);
    return 2;
  }
  space *s = NULL;
  store *st = NULL;
  char *spath = NULL, *self = self_exe_path(), *ncu = NULL, *san = NULL;
  const record **ok = NULL;
  pick pk[MAX_PICKS];
  int npk = 0, rc = 1;
  if (space_load(o.space_path, &s, &err) != 0) goto fail;
  /* the template's hash as records carry it: the verdicts are about this version of the code */
  char thash[33] = "";
  cterr serr;
  if (job_template_hash(s, thash, &serr) != 0) thash[0] = 0;
  if (!(spath = explain_find_store(o.results_dir, o.store_path, s, &err))) goto fail;
  dbuf warn;
  dbuf_init(&warn);
  int lr = store_load(spath, &st, &warn, &err);
  dbuf_free(&warn);
  if (lr != 0) goto fail;
  int prob = o.problem ? job_find_problem(s, o.problem, &err) : 0;
  if (prob < 0) {
    cterr_wrap(&err, "--problem");
    goto fail;
  }
  int sprob = o.sanitize_problem ? job_find_problem(s, o.sanitize_problem, &err) : smallest_problem(s);
  if (sprob < 0) {
    cterr_wrap(&err, "--sanitize-problem");
    goto fail;
  }
  const char *pkey = space_problem_key(s, prob), *spkey = space_problem_key(s, sprob);
  size_t nok = 0;
  ok = latest_ok(st, pkey, &nok);
  if (choose(&o, s, ok, nok, pk, &npk, &err) != 0) goto fail;
  if (npk == 0) {
    cterr_set(&err, "nothing to explain: %s has no measured configuration on %s (and no --config)", spath, pkey);
    goto fail;
  }
  if (!self) {
    cterr_set(&err, "cannot find this executable (/proc/self/exe)");
    goto fail;
  }
  const char *device = nok ? ok[0]->device_name : NULL;
  if (!o.no_profile) {
    if (!(ncu = tool_find(o.ncu, "ncu"))) {
      fprintf(stderr,
              "cutune explain: %s; install Nsight Compute or give --ncu PATH "
              "(profiling needs it; --no-profile --sanitize runs the sanitizers alone)\n",
              o.ncu ? "--ncu is not an executable" : "ncu is not on PATH nor in /usr/local/cuda/bin");
      rc = EXPLAIN_EXIT_NO_NCU;
      goto out;
    }
    fprintf(stderr, "explain: profiling %d configurations of %s on %s with %s\n", npk, space_name(s), pkey, ncu);
    for (int i = 0; i < npk; i++) {
      const char *diag = NULL;
      fprintf(stderr, "explain: #%d %s (%s)\n", i + 1, pk[i].config, pk[i].label);
      time_plain(&o, self, pkey, &pk[i]);
      int pr = profile(&o, ncu, self, s, pkey, &pk[i], &diag, &err);
      if (pr < 0) goto fail;
      if (pr == 1) {
        fprintf(stderr,
                "cutune explain: ncu cannot read the GPU's performance counters here: %s\n"
                "(nothing was recorded; `cutune run`, `report` and the rest are unaffected)\n",
                diag);
        rc = EXPLAIN_EXIT_NO_NCU;
        goto out;
      }
      store_entries(spath, &pk[i], pkey, spkey, thash, 1); /* now: a later kill loses nothing done */
    }
  }
  int flagged = 0;
  if (o.sanitize) {
    if (!(san = tool_find(o.sanitizer, "compute-sanitizer"))) {
      cterr_set(&err, "compute-sanitizer %s",
                o.sanitizer ? "given by --sanitizer is not an executable"
                            : "is not on PATH nor in /usr/local/cuda/bin");
      goto fail;
    }
    fprintf(stderr, "explain: sanitizing on %s with %s\n", spkey, san);
    for (int i = 0; i < npk; i++) {
      const record *r = pk[i].rec;
      int shared = !r || r->smem_static != 0 || r->smem_dynamic > 0; /* unknown (-1) counts as shared */
      for (int t = 0; t < SAN_NTOOLS; t++) {
        if (t == SAN_RACECHECK && !shared) continue;
        fprintf(stderr, "explain: %s #%d %s\n", san_tool_name((san_tool)t), i + 1, pk[i].config);
        sanitize(&o, san, self, spkey, &pk[i], (san_tool)t);
        flagged |= pk[i].v[t].status == SAN_FLAGGED;
      }
      store_entries(spath, &pk[i], pkey, spkey, thash, 0);
    }
  }
  if (!o.no_profile) explain_print_table(pk, npk, space_name(s), pkey, device);
  if (o.sanitize) {
    printf("\nsanitizers on %s (a flagged configuration is never shipped by `cutune header`):\n", spkey);
    for (int i = 0; i < npk; i++) {
      printf("  #%-2d %s\n", i + 1, pk[i].config);
      for (int t = 0; t < SAN_NTOOLS; t++) {
        if (!pk[i].ran[t]) {
          if (t == SAN_RACECHECK) printf("      %-9s not run (no shared memory)\n", san_tool_name((san_tool)t));
          continue;
        }
        const san_verdict *v = &pk[i].v[t];
        printf("      %-9s %-7s", san_tool_name(v->tool), san_status_name(v->status));
        if (v->errors > 0) printf(" %ld %s", v->errors, t == SAN_RACECHECK ? "hazards" : "errors");
        if (v->finding[0]) printf(": %s", v->finding);
        printf("\n");
      }
    }
  }
  char *side = explain_sidecar_path(spath);
  printf("\nrecorded in %s\n", side);
  free(side);
  rc = flagged ? EXPLAIN_EXIT_FLAGGED : 0;
  goto out;
fail:
  fprintf(stderr, "cutune explain: %s\n", err.msg);
  rc = 1;
out:
  for (int i = 0; i < npk; i++) free(pk[i].config);
  free(ok);
  store_close(st);
  space_free(s);
  free(spath), free(self), free(ncu), free(san);
  return rc;
}
