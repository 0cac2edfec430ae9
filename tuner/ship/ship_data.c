/* ship_data: see ship_data.h. */
#include "ship_data.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "explain/explain_store.h"
#include "search/replay.h"
#include "space/configset.h"
#include "store/store.h"

struct ship_data {
  ship_opts o;
  char *space;
  int nparams;
  char **params;
  char *params_from; /* the file (or "the space") that fixed the parameter names */
  record *rec;
  char **src;
  size_t n, cap;
  size_t *slot; /* open-addressing index over (device, problem, config): rec index + 1 */
  size_t nslot;
};

ship_data *ship_data_new(const ship_opts *o) {
  ship_data *d = xcalloc(1, sizeof *d);
  if (o) d->o = *o;
  if (o && o->nparams > 0) {
    d->nparams = o->nparams;
    d->params = xcalloc((size_t)o->nparams, sizeof(char *));
    for (int p = 0; p < o->nparams; p++) d->params[p] = xstrdup(o->params[p]);
    d->params_from = xstrdup("the space");
  }
  if (o && o->space_name) d->space = xstrdup(o->space_name);
  return d;
}

void ship_data_free(ship_data *d) {
  if (!d) return;
  for (size_t i = 0; i < d->n; i++) record_free(&d->rec[i]), free(d->src[i]);
  for (int p = 0; p < d->nparams; p++) free(d->params[p]);
  free(d->params), free(d->params_from), free(d->space), free(d->rec), free(d->src), free(d->slot), free(d);
}

size_t ship_count(const ship_data *d) { return d->n; }
const record *ship_get(const ship_data *d, size_t i) { return &d->rec[i]; }
const char *ship_source(const ship_data *d, size_t i) { return d->src[i]; }
const char *ship_space(const ship_data *d) { return d->space; }
int ship_nparams(const ship_data *d) { return d->nparams; }
const char *ship_param(const ship_data *d, int p) { return d->params[p]; }

static uint64_t hash_key(const record *r) {
  uint64_t h = 1469598103934665603ull;
  const char *parts[3] = {r->device_name ? r->device_name : "", r->problem ? r->problem : "",
                          r->config ? r->config : ""};
  for (int k = 0; k < 3; k++) {
    for (const char *c = parts[k]; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h = (h ^ 0x1f) * 1099511628211ull;
  }
  return h;
}

static int same_key(const record *a, const record *b) {
  return !strcmp(a->device_name ? a->device_name : "", b->device_name ? b->device_name : "") &&
         !strcmp(a->problem, b->problem) && !strcmp(a->config, b->config);
}

static void reindex(ship_data *d) {
  free(d->slot);
  d->nslot = 64;
  while (d->nslot < 2 * d->cap) d->nslot *= 2;
  d->slot = xcalloc(d->nslot, sizeof(size_t));
  for (size_t i = 0; i < d->n; i++) {
    size_t h = (size_t)(hash_key(&d->rec[i]) & (d->nslot - 1));
    while (d->slot[h]) h = (h + 1) & (d->nslot - 1);
    d->slot[h] = i + 1;
  }
}

/* Take r (moved in): replaces an older record of the same key. */
static void put(ship_data *d, record *r, const char *src) {
  if (d->n + 1 > d->cap) {
    d->cap = d->cap ? 2 * d->cap : 256;
    d->rec = xrealloc(d->rec, d->cap * sizeof(record));
    d->src = xrealloc(d->src, d->cap * sizeof(char *));
    reindex(d);
  }
  size_t h = (size_t)(hash_key(r) & (d->nslot - 1));
  while (d->slot[h]) {
    size_t i = d->slot[h] - 1;
    if (same_key(&d->rec[i], r)) {
      record_free(&d->rec[i]), free(d->src[i]);
      d->rec[i] = *r, d->src[i] = xstrdup(src);
      return;
    }
    h = (h + 1) & (d->nslot - 1);
  }
  d->rec[d->n] = *r, d->src[d->n] = xstrdup(src);
  d->slot[h] = ++d->n;
}

static char *join_names(char *const *names, int n) {
  dbuf b;
  dbuf_init(&b);
  for (int i = 0; i < n; i++) dbuf_printf(&b, "%s%s", i ? "," : "", names[i]);
  return dbuf_steal(&b);
}

/* The file's space and parameter names against the set's. */
static int check_shape(ship_data *d, const char *path, const char *space, int np, char *const *names, cterr *err) {
  if (d->o.any_space) return 0;
  if (!d->space) d->space = xstrdup(space);
  else if (strcmp(d->space, space))
    return cterr_set(err, "%s: records of space '%s', not '%s' (one header per space: give the files of one space)",
                     path, space, d->space);
  if (!d->params) {
    d->nparams = np;
    d->params = xcalloc((size_t)(np ? np : 1), sizeof(char *));
    for (int p = 0; p < np; p++) d->params[p] = xstrdup(names[p]);
    d->params_from = xstrdup(path);
    return 0;
  }
  int same = np == d->nparams;
  for (int p = 0; p < np && same; p++) {
    same = 0;
    for (int q = 0; q < d->nparams; q++) same |= !strcmp(names[p], d->params[q]);
  }
  if (!same) {
    char *a = join_names(names, np), *b = join_names(d->params, d->nparams);
    cterr_set(err, "%s: parameters (%s) disagree with those of %s (%s)", path, a, d->params_from, b);
    free(a), free(b);
    return -1;
  }
  return 0;
}

/* The warning for the records of an input that the space does not have (ship_opts.in_space). */
static void warn_outside(dbuf *warn, const char *path, size_t n, const char *first) {
  if (n)
    dbuf_printf(warn,
                "%s: %zu records of configurations the space does not have skipped (a value it no longer lists or a "
                "constraint that rejects them; the first: %s)\n",
                path, n, first);
}

static int add_store(ship_data *d, const char *path, dbuf *warn, cterr *err) {
  store *st;
  if (store_load(path, &st, warn, err) < 0) return -1;
  size_t n = store_count(st), ok = 0, other = 0, other_check = 0, flagged = 0, outside = 0, untimed = 0;
  const char *first_outside = NULL, *first_untimed = NULL;
  int rc = -1;
  /* sanitizer verdicts of `cutune explain --sanitize` live beside the store: read once; one that
   * exists but cannot be read ships nothing (explain_verdict_ok's rule) */
  char *side = explain_sidecar_path(path);
  int sidecar = access(side, F_OK) == 0;
  free(side);
  explain_set *ex = NULL;
  char unread[CTERR_MAX + 64] = "";
  cterr lerr;
  if (sidecar && explain_load(path, &ex, NULL, &lerr) != 0)
    snprintf(unread, sizeof unread, "the sanitizer verdicts cannot be read: %s", lerr.msg);
  for (size_t i = 0; i < n; i++) {
    const record *r = store_get(st, i);
    if (!r->space || !r->config || !r->problem) continue;
    /* a record of another version of the template may name other parameters (the template
     * gained one): it is skipped, as any other version's, before its names are compared */
    if (d->o.template_hash && r->template_hash && strcmp(r->template_hash, d->o.template_hash)) {
      other++;
      continue;
    }
    if (check_shape(d, path, r->space, r->nparams, r->pname, err) < 0) goto done;
    if (d->o.in_space && !d->o.in_space(d->o.in_space_ctx, r)) {
      if (!outside++) first_outside = r->config;
      continue;
    }
    /* checked under another check than the space's now: not an answer (an older record of the
     * same configuration measured under this check still is) */
    if (d->o.check_of && !store_same_check(d->o.check_of(d->o.check_ctx, r), r)) {
      other_check++;
      continue;
    }
    if (r->status == ST_OK && !record_timed(r)) { /* a negative, zero or NaN median: no time at all */
      if (!untimed++) first_untimed = r->config;
      continue;
    }
    record c;
    record_copy(&c, r);
    char why[CTERR_MAX + 64];
    int no_ship = 0;
    if (c.status == ST_OK && sidecar) {
      if (unread[0]) snprintf(why, sizeof why, "%s", unread), no_ship = 1;
      else no_ship = explain_verdict(ex, c.config, NULL, c.template_hash, why, sizeof why) == EXPLAIN_FLAGGED;
    }
    if (no_ship) {
      /* the shipping rule (explain/explain_store.h): never ship what a sanitizer flagged */
      c.status = ST_WRONG_RESULT;
      record_set_str(&c.message, why);
      flagged++;
      dbuf_printf(warn, "%s: %s not shipped: %s\n", path, c.config, why);
    }
    if (c.status == ST_OK) ok++;
    put(d, &c, path);
  }
  if (other)
    dbuf_printf(warn,
                "%s: %zu records of another version of the template skipped (measure them again with cutune run)\n",
                path, other);
  if (other_check)
    dbuf_printf(warn,
                "%s: %zu records checked under another check of their problem skipped (the space's tolerance, "
                "mismatches, reference or check kernel changed since they were measured: measure them again with "
                "cutune run)\n",
                path, other_check);
  warn_outside(warn, path, outside, first_outside);
  if (untimed)
    dbuf_printf(warn,
                "%s: %zu records marked ok with a time that is not a positive number skipped (a damaged or edited "
                "store; the first: %s)\n",
                path, untimed, first_untimed);
  if (!ok) {
    cterr_set(err,
              "%s: no configuration ran successfully (%zu records, all failed, of another template, of another check "
              "(%zu), outside the space (%zu), without a positive time (%zu) or flagged by a sanitizer (%zu)) — "
              "nothing to ship from it",
              path, n, other_check, outside, untimed, flagged);
    rc = 1; /* nothing to ship: an error for a file named, passed over in a folder walk */
    goto done;
  }
  rc = 0;
done:
  explain_free(ex);
  store_close(st);
  return rc;
}

static int add_kt(ship_data *d, const char *path, dbuf *warn, cterr *err) {
  replay *rp;
  if (replay_load(path, NULL, &rp, err) < 0) return -1;
  const configset *cs = replay_configs(rp);
  int np = configset_nparams(cs), rc = -1;
  char *names[CS_MAX_PARAMS];
  for (int p = 0; p < np; p++) names[p] = configset_param(cs, p)->name;
  const char *space = d->space ? d->space : replay_kernel(rp) ? replay_kernel(rp) : "kernel";
  if (d->o.any_space) { /* the file's own parameters, in its order */
    for (int q = 0; q < d->nparams; q++) free(d->params[q]);
    free(d->params);
    d->nparams = np;
    d->params = xcalloc((size_t)(np ? np : 1), sizeof(char *));
    for (int p = 0; p < np; p++) d->params[p] = xstrdup(names[p]);
  }
  const char *dev = replay_device(rp);
  if (!dev) {
    cterr_set(err, "%s: the Kernel Tuner cache names no device_name", path);
    goto done;
  }
  if (check_shape(d, path, space, np, names, err) < 0) goto done;
  /* the problem: problem_size under the given names */
  dbuf pk;
  dbuf_init(&pk);
  const char *sz = replay_sizes(rp) ? replay_sizes(rp) : "";
  char *copy = xstrdup(sz), *save = NULL;
  int k = 0;
  typedef struct {
    const char *name;
    char *val;
  } nv;
  nv vars[16];
  for (char *tok = strtok_r(copy, ",", &save); tok && k < 16; tok = strtok_r(NULL, ",", &save), k++) {
    vars[k].name = k < d->o.nkt_vars ? d->o.kt_vars[k] : NULL;
    vars[k].val = tok;
  }
  if (d->o.nkt_vars && d->o.nkt_vars != k) {
    cterr_set(err, "%s: problem_size has %d dimensions (%s) but %d names were given for them", path, k, sz,
              d->o.nkt_vars);
    free(copy), dbuf_free(&pk);
    goto done;
  }
  if (!d->o.nkt_vars) dbuf_printf(&pk, "size=%s", sz);
  /* the store's canonical order: names sorted */
  for (int pass = 0; d->o.nkt_vars && pass < k; pass++) {
    int best = -1;
    for (int j = 0; j < k; j++)
      if (vars[j].name && (best < 0 || strcmp(vars[j].name, vars[best].name) < 0)) best = j;
    dbuf_printf(&pk, "%s%s=%s", pass ? "," : "", vars[best].name, vars[best].val);
    vars[best].name = NULL;
  }
  int cc = ship_cc_of(&d->o, dev, NULL);
  size_t ok = 0, outside = 0;
  char first_outside[256] = "";
  for (size_t i = 0; i < replay_count(rp); i++) {
    record r;
    record_init(&r);
    record_set_str(&r.space, space);
    record_set_str(&r.problem, pk.data);
    record_set_str(&r.device_name, dev);
    if (cc) {
      char ccs[16];
      snprintf(ccs, sizeof ccs, "%d.%d", cc / 10, cc % 10);
      record_set_str(&r.device_cc, ccs);
    }
    record_set_str(&r.timestamp, replay_date(rp));
    record_set_str(&r.message, "");
    /* parameters in the set's order */
    const uint16_t *row = configset_row(cs, i);
    dbuf key;
    dbuf_init(&key);
    r.nparams = d->nparams;
    for (int q = 0; q < d->nparams; q++) {
      int p = configset_param_index(cs, d->params[q]);
      record_set_str(&r.pname[q], d->params[q]);
      record_set_str(&r.pvalue[q], configset_param(cs, p)->str[row[p]]);
      dbuf_printf(&key, "%s%s=%s", q ? "," : "", d->params[q], r.pvalue[q]);
    }
    r.config = dbuf_steal(&key);
    r.status = replay_status(rp, i);
    if (d->o.in_space && !d->o.in_space(d->o.in_space_ctx, &r)) {
      if (!outside++) snprintf(first_outside, sizeof first_outside, "%s", r.config);
      record_free(&r);
      continue;
    }
    if (r.status == ST_OK) {
      r.t_median = r.t_mean = replay_value(rp, i); /* Kernel Tuner's "time" is the mean */
      r.samples = replay_nreps(rp, i);
      ok++;
    }
    put(d, &r, path);
  }
  free(copy), dbuf_free(&pk);
  warn_outside(warn, path, outside, first_outside);
  if (!ok) {
    cterr_set(err, "%s: no configuration ran successfully%s — nothing to ship from it", path,
              outside ? " among those the space has" : "");
    goto done;
  }
  rc = 0;
done:
  replay_free(rp);
  return rc;
}

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

/* A store in a folder: <space>.jsonl, not the sidecar of `cutune explain` beside it
 * (<space>.explain.jsonl, explain_sidecar_path) nor anything else kept there. */
static int is_store_name(const char *name) { return ends_with(name, ".jsonl") && !ends_with(name, ".explain.jsonl"); }

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A store met in a folder walk: one with nothing to ship (every record failed, or of another
 * template) is passed over with a warning; any other error stands. */
static int add_found(ship_data *d, const char *path, dbuf *warn, cterr *err) {
  int rc = add_store(d, path, warn, err);
  if (rc == 1) dbuf_printf(warn, "%s (passed over)\n", err->msg);
  return rc < 0 ? -1 : 0;
}

static int add_dir(ship_data *d, const char *dir, dbuf *warn, cterr *err) {
  DIR *dh = opendir(dir);
  if (!dh) return cterr_set(err, "%s: cannot open the folder", dir);
  char **names = NULL;
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(dh)))
    if (de->d_name[0] != '.') names = xrealloc(names, (n + 1) * sizeof(char *)), names[n++] = xstrdup(de->d_name);
  closedir(dh);
  qsort(names, n, sizeof(char *), cmp_str);
  char *want = d->space ? xasprintf("%s.jsonl", d->space) : NULL;
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    char *p = path_join(dir, names[i]);
    struct stat sb;
    if (rc == 0 && stat(p, &sb) == 0) {
      /* X.jsonl.gz is the compressed part of the store X.jsonl (store.h), read with it; alone
       * where the store has no plain file */
      if (ends_with(names[i], ".jsonl.gz") && !ends_with(names[i], ".archive.jsonl.gz")) {
        names[i][strlen(names[i]) - 3] = 0; /* X.jsonl */
        char *plain = path_join(dir, names[i]);
        if (!file_exists(plain) && (want ? !strcmp(names[i], want) : is_store_name(names[i])))
          rc = add_found(d, p, warn, err);
        free(plain);
      } else if (S_ISDIR(sb.st_mode)) rc = add_dir(d, p, warn, err);
      else if (want ? !strcmp(names[i], want) : is_store_name(names[i])) rc = add_found(d, p, warn, err);
    }
    free(p), free(names[i]);
  }
  free(names), free(want);
  return rc;
}

int ship_data_add(ship_data *d, const char *path, dbuf *warn, cterr *err) {
  struct stat sb;
  if (stat(path, &sb) != 0) return cterr_set(err, "%s: no such file or folder", path);
  if (S_ISDIR(sb.st_mode)) return add_dir(d, path, warn, err);
  if (ends_with(path, ".jsonl") || ends_with(path, ".jsonl.gz")) return add_store(d, path, warn, err) != 0 ? -1 : 0;
  if (ends_with(path, ".json") || ends_with(path, ".json.gz")) return add_kt(d, path, warn, err);
  return cterr_set(err, "%s: neither a cutune store (.jsonl) nor a Kernel Tuner cache (.json, .json.gz)", path);
}

/* ---- compute capability from a device name ---- */

/* A table of device names: the first row whose pattern the name contains gives the value. */
typedef struct {
  const char *pat;
  int value;
} name_row;

static int name_lookup(const name_row *t, size_t n, const char *device_name) {
  for (size_t i = 0; i < n; i++)
    if (strstr(device_name, t[i].pat)) return t[i].value;
  return 0;
}

static const name_row cc_table[] = {
    {"GH200", 90},     {"H200", 90},         {"H100", 90},         {"H800", 90},         {"H20", 90},
    {"B200", 100},     {"B100", 100},        {"GB200", 100},       {"L40", 89},          {"L4", 89},
    {"RTX 40", 89},    {"RTX 6000 Ada", 89}, {"RTX 5000 Ada", 89}, {"RTX 4000 Ada", 89}, {"A100", 80},
    {"A800", 80},      {"A30", 80},          {"A40", 86},          {"A10", 86},          {"A16", 86},
    {"A2", 86},        {"RTX A", 86},        {"RTX 30", 86},       {"T4", 75},           {"RTX 20", 75},
    {"TITAN RTX", 75}, {"Quadro RTX", 75},   {"V100", 70},         {"TITAN V", 70},
};

int ship_cc_of(const ship_opts *o, const char *device_name, const char *cc_text) {
  if (!device_name) return 0;
  for (int i = 0; o && i < o->ncc; i++)
    if (!strcmp(o->cc_names[i], device_name)) return o->cc_values[i];
  if (cc_text && *cc_text) {
    int a = 0, b = 0;
    if (sscanf(cc_text, "%d.%d", &a, &b) == 2 && a > 0) return 10 * a + b;
  }
  if (!strstr(device_name, "NVIDIA") && !strstr(device_name, "Tesla") && !strstr(device_name, "GeForce") &&
      !strstr(device_name, "Quadro"))
    return 0;
  return name_lookup(cc_table, sizeof cc_table / sizeof cc_table[0], device_name);
}

/* ---- multiprocessors from a device name ---- */

/* First match wins: the more specific names come first ("H100 PCIe" before "H100", "A100"
 * before "A10", "RTX A4000" before "A40"). */
static const name_row sm_table[] = {
    {"H100 PCIe", 114}, {"GH200", 132},    {"H200", 132},     {"H100", 132},    {"H800", 132},
    {"H20", 78},        {"B200", 148},     {"A100", 108},     {"A800", 108},    {"A30", 56},
    {"RTX A6000", 84},  {"RTX A5000", 64}, {"RTX A4000", 48}, {"A40", 84},      {"A10G", 80},
    {"A10", 72},        {"L40S", 142},     {"L40", 142},      {"L4", 58},       {"RTX 6000 Ada", 142},
    {"RTX 4090", 128},  {"RTX 4080", 76},  {"RTX 3090", 82},  {"RTX 3080", 68}, {"T4", 40},
    {"V100", 80},       {"TITAN V", 80},
};

int ship_sms_of(const char *device_name) {
  return device_name ? name_lookup(sm_table, sizeof sm_table / sizeof sm_table[0], device_name) : 0;
}
