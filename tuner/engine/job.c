/* job: what the compile-only and GPU paths of `cutune run` share — the compile job of a
 * configuration, its options hash, the record it starts from, problem selection and the compile
 * pool the options ask for. See job.h; the program's text is job_source.c's. */
#include "job.h"

#include "base/input.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int job_problem_selected(const space *s, const run_opts *o, int prob) {
  cterr e;
  return space_select_match(s, o->problem, prob, &e) == 1;
}

int job_problem_selection(const space *s, const run_opts *o, int *count, cterr *err) {
  return space_select_check(s, o->problem, count, err);
}

/* "A=1,B=2" -> names and values (pointing into the copy), at most max; -1 when a part has no '='. */
static int split_pairs(char *copy, char **names, char **values, int max) {
  int n = 0;
  char *save = NULL;
  for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(t, '=');
    if (!eq || eq == t || n == max) return -1;
    *eq = 0;
    names[n] = t, values[n++] = eq + 1;
  }
  return n;
}

int job_find_problem(const space *s, const char *spec, cterr *err) {
  int np = space_nproblems(s), hit = -1, nhit = 0;
  char *end;
  long idx = strtol(spec, &end, 10);
  if (*spec && !*end) {
    if (idx >= 0 && idx < np) return (int)idx;
    return cterr_set(err, "problem %s: %s has problems 0 to %d", spec, space_path(s), np - 1);
  }
  dbuf which;
  dbuf_init(&which);
  int bad = 0;
  for (int p = 0; p < np && !bad; p++) {
    int r = space_problem_has(s, p, spec, strlen(spec));
    bad = r < 0;
    if (r == 1) dbuf_printf(&which, "%s%s", nhit ? ", " : "", space_problem_key(s, p)), hit = p, nhit++;
  }
  if (bad || nhit != 1) {
    if (bad)
      cterr_set(err, "problem '%s': give an index or NAME=VALUE pairs such as \"%s\"", spec, space_problem_key(s, 0));
    else if (nhit == 0) {
      dbuf_reset(&which);
      for (int p = 0; p < np && p < 12; p++) dbuf_printf(&which, "%s%s", p ? ", " : "", space_problem_key(s, p));
      cterr_set(err, "'%s' matches no problem of %s (its problems: %s%s; or an index 0 to %d)", spec, space_path(s),
                which.data, np > 12 ? ", ..." : "", np - 1);
    } else
      cterr_set(err, "'%s' matches %d problems of %s (%s): give more of the dimensions", spec, nhit, space_path(s),
                which.data);
    hit = -1;
  }
  dbuf_free(&which);
  return hit;
}

long job_find_config(const space *s, const char *key, cterr *err) {
  const configset *cs = space_configs(s);
  char *copy = xstrdup(key), *names[CS_MAX_PARAMS + 1], *values[CS_MAX_PARAMS + 1];
  int n = split_pairs(copy, names, values, CS_MAX_PARAMS + 1), bad = 0;
  long cfg = n < 0 ? -3 : configset_lookup_named(cs, n, names, values, &bad);
  const char *given = NULL; /* the value given for the parameter that did not match, if any */
  for (int k = 0; cfg == -1 && k < n && !given; k++)
    if (!strcmp(names[k], configset_param(cs, bad)->name)) given = values[k];
  if (cfg == -3 || (cfg >= 0 && n != configset_nparams(cs)))
    cterr_set(err, "no valid configuration '%s': give NAME=VALUE for each of the %d parameters", key,
              configset_nparams(cs));
  else if (cfg == -1 && given)
    cterr_set(err, "no valid configuration '%s': %s=%s is not a value the space lists", key,
              configset_param(cs, bad)->name, given);
  else if (cfg == -1)
    cterr_set(err, "no valid configuration '%s': it gives no value of %s", key, configset_param(cs, bad)->name);
  else if (cfg < 0) cterr_set(err, "no valid configuration '%s' in %s: its constraints reject it", key, space_path(s));
  free(copy);
  return cfg < 0 ? -1 : cfg;
}

/* Whether dir can hold the cache: created if missing, and writable. */
static int cache_usable(const char *dir, cterr *err) {
  if (mkdir_p(dir, err) != 0) return -1;
  if (access(dir, W_OK | X_OK) != 0) return cterr_set(err, "%s: not writable: %s", dir, strerror(errno));
  return 0;
}

int job_open_pool(const run_opts *o, const char *self_exe, cpool **pool, int *jobs, cterr *err) {
  char *cache = o->no_cache ? NULL : o->cache_dir ? xstrdup(o->cache_dir) : compile_cache_default_dir();
  cterr ce;
  if (cache && cache_usable(cache, &ce) != 0) {
    if (o->cache_dir) {
      free(cache);
      return cterr_set(err,
                       "--cache %s cannot be used as the compile cache (%s); give a writable folder, or "
                       "--no-cache",
                       o->cache_dir, ce.msg);
    }
    fflush(stdout);
    fprintf(stderr,
            "cutune: warning: the default compile cache cannot be used (%s); compiling without a cache "
            "(set --cache DIR or CUTUNE_CACHE)\n",
            ce.msg);
    free(cache), cache = NULL;
  }
  int n = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  int rc = cpool_new(pool, self_exe, n, cache, err);
  free(cache);
  if (rc == 0 && o->compile_timeout > 0) cpool_set_timeout(*pool, o->compile_timeout);
  if (rc == 0) cpool_set_batch(*pool, o->batch);
  if (jobs) *jobs = n;
  return rc;
}

/* A generator's text for each program of configuration cfg's job (job.h): the first with p, a
 * further one with its launch's defines set in p (the first's text where it has none). */
static void generate(const space *s, const compile_source *src, size_t cfg, compile_job *job, job_hold *hold) {
  hold->generated = 1;
  compile_job *x = job;
  for (int prog = 0; x && prog < COMPILE_MAX_PROGRAMS; prog++, x = (compile_job *)x->next) {
    const char *const *dn = NULL, *const *dv = NULL;
    int nd = prog ? space_program_defines(s, prog, &dn, &dv) : 0;
    if (prog && !nd) {
      x->src = job->src, x->src_digest = job->src_digest;
      continue;
    }
    cterr e;
    if (job_edit_text(s, src, cfg, nd, dn, dv, &hold->text[prog], hold->digest[prog], &e) != 0) {
      hold->failed = xstrdup(e.msg);
      return;
    }
    x->src = hold->text[prog], x->src_digest = hold->digest[prog];
  }
}

void job_failed_result(const job_hold *hold, compile_result *cr) {
  compile_result_init(cr);
  cr->message = xstrdup(hold->failed ? hold->failed : "template_edit failed");
  cr->space_fault = 1;
}

int job_make(const space *s, const compile_source *src, size_t cfg, const char *arch, compile_job *job, job_hold *hold,
             cterr *err) {
  const configset *cs = space_configs(s);
  const uint16_t *row = configset_row(cs, cfg);
  memset(job, 0, sizeof *job);
  hold->n = 0;
  hold->generated = 0, hold->failed = NULL;
  for (int k = 0; k < COMPILE_MAX_PROGRAMS; k++) hold->text[k] = NULL, hold->digest[k][0] = 0;
  if (!space_config_arch(s, cfg, arch, hold->arch, sizeof hold->arch, hold->unfit, sizeof hold->unfit) &&
      !hold->unfit[0])
    snprintf(hold->unfit, sizeof hold->unfit, "not for %s", arch);
  int np = configset_nparams(cs);
  if (np + space_noptions(s) > COMPILE_MAX_OPTS)
    return cterr_set(err, "%s: too many parameters and options (%d, at most %d)", space_path(s), np + space_noptions(s),
                     COMPILE_MAX_OPTS);
  for (int p = 0; p < np; p++) {
    const cs_param *pp = configset_param(cs, p);
    if (space_param_runtime(s, p)) continue; /* an argument value, not a -D (space.h) */
    hold->opts[hold->n++] = xasprintf("-D%s=%s", pp->name, pp->str[row[p]]);
  }
  for (int i = 0; i < space_noptions(s); i++) hold->opts[hold->n++] = xstrdup(space_option(s, i));
  job->src_path = space_template_path(s);
  job->src = src->text.data ? src->text.data : "";
  job->src_digest = src->digest;
  job->kernel = space_kernel(s);
  job->arch = hold->arch;
  job->alone = space_nsymbols(s) > 0; /* the GPU worker finds them by their names */
  if (space_ref_per_config(s)) job->names[job->nnames++] = space_ref_kernel(s); /* in each configuration's program */
  job->nopts = hold->n;
  for (int i = 0; i < hold->n; i++) job->opts[i] = hold->opts[i];
  if (space_nlaunches(s) && job_programs(s, cfg, job, hold, err) != 0) return -1;
  /* a generator runs only for a configuration that is compiled */
  if (space_edit_per_config(s) && !hold->unfit[0]) generate(s, src, cfg, job, hold);
  return 0;
}

int job_compile_cached(const compile_job *job, compile_result *cr, cterr *err) {
  char *dir = compile_cache_default_dir();
  compile_job_key(job, cr->key);
  int rc = 0;
  if (!(dir && compile_cache_get(dir, cr->key, cr))) {
    rc = compile_bundle(job, cr, err); /* a launch sequence: the further programs too */
    if (rc == 0 && dir) compile_cache_put(dir, cr->key, cr, NULL);
  }
  free(dir);
  return rc;
}

/* A program compiled once from the space's own template when its template_edit is a generator
 * (job.h): there is no configuration, so p is the program's defines ("-DNAME=VALUE"); where the
 * function cannot make the program from them, err says what to give instead. */
static int generate_once(const space *s, const compile_source *src, const char *kernel, int ndefines,
                         const char *const *defines, const char *what, char **text, char digest[65], cterr *err) {
  const char *dn[COMPILE_MAX_OPTS], *dv[COMPILE_MAX_OPTS];
  char *names[COMPILE_MAX_OPTS] = {0};
  int nd = 0;
  for (int i = 0; i < ndefines && nd < COMPILE_MAX_OPTS; i++) {
    const char *d = defines[i], *eq = strchr(d, '=');
    if (strncmp(d, "-D", 2) || !eq) continue;
    names[nd] = xasprintf("%.*s", (int)(eq - d - 2), d + 2);
    dn[nd] = names[nd], dv[nd] = eq + 1, nd++;
  }
  cterr e;
  int rc = job_edit_text(s, src, SPACE_NO_CONFIG, nd, dn, dv, text, digest, &e);
  for (int i = 0; i < nd; i++) free(names[i]);
  if (rc == 0) return 0;
  const char *give = !strcmp(what, "reference")
                         ? "give reference.defines = { NAME = value, ... } with every parameter the function reads, "
                           "or reference.params = { \"NAME\", ... } (the reference is then compiled into each "
                           "configuration's program, from the text the function makes for it), or a reference "
                           "template of its own (reference.template)"
                     : !strcmp(what, "init") ? "give the init launches' defines every parameter the function reads"
                                             : "give the check kernel a template of its own (check.template)";
  const char *pis = !strcmp(what, "reference") ? (nd ? "reference.defines" : "reference.defines (none given: empty)")
                    : !strcmp(what, "init")    ? "the init launches' defines"
                                               : "empty (a check kernel has no defines)";
  return cterr_set(err,
                   "%s: the %s kernel '%s' is compiled once from the space's template, whose template_edit is a "
                   "generator (function(text, p)): with no configuration, p is %s, and the call failed: %s. To fix "
                   "it, %s",
                   space_path(s), what, kernel, pis, e.msg, give);
}

/* One program compiled once for the run (the reference, the user's check kernel): path with
 * -Ddefine=1 and defines, the space's options; through the pool (its cache) or in this process. */
static int compile_once(const space *s, const char *arch, cpool *pool, const char *path, const char *kernel, int nnames,
                        const char *const *names, const char *define, int ndefines, const char *const *defines,
                        const char *what, compile_result *cr, cterr *err) {
  /* the program's includes are hashed into its cache key as the template's are */
  compile_source rsrc;
  const char *ropts[COMPILE_MAX_OPTS];
  int nro = space_noptions(s) < COMPILE_MAX_OPTS ? space_noptions(s) : COMPILE_MAX_OPTS;
  for (int i = 0; i < nro; i++) ropts[i] = space_option(s, i);
  /* the space's own template is its program as the configurations get it (template_var) */
  int own = !strcmp(path, space_template_path(s));
  compile_source_init(&rsrc);
  if ((own ? job_load_source(s, &rsrc, err) : compile_source_load(&rsrc, path, nro, ropts, err)) != 0) {
    compile_source_free(&rsrc);
    return -1;
  }
  compile_job job = {0};
  job.src_path = path;
  job.src = rsrc.text.data ? rsrc.text.data : "";
  job.src_digest = rsrc.digest;
  char *made = NULL, made_digest[65];
  if (own && space_edit_per_config(s) &&
      generate_once(s, &rsrc, kernel, ndefines, defines, what, &made, made_digest, err) != 0) {
    compile_source_free(&rsrc);
    return -1;
  }
  if (made) job.src = made, job.src_digest = made_digest;
  job.kernel = kernel;
  job.arch = arch;
  for (int i = 0; i < nnames && job.nnames < COMPILE_MAX_NAMES; i++) job.names[job.nnames++] = names[i];
  job.opts[job.nopts++] = define;
  for (int i = 0; i < ndefines && job.nopts < COMPILE_MAX_OPTS; i++) job.opts[job.nopts++] = defines[i];
  for (int i = 0; i < space_noptions(s) && job.nopts < COMPILE_MAX_OPTS; i++)
    job.opts[job.nopts++] = space_option(s, i);
  int rc;
  if (!pool) rc = job_compile_cached(&job, cr, err);
  else if ((rc = cpool_submit(pool, JOB_REFERENCE_TAG, &job, err)) == 0) {
    uint64_t tag = 0;
    int w;
    while ((w = cpool_wait(pool, &tag, cr, -1, err)) == 0 || (w == 1 && tag != JOB_REFERENCE_TAG))
      if (w == 1) compile_result_free(cr); /* not ours: nothing else is in flight yet, but be sure */
    rc = w < 0 ? -1 : 0;
  }
  compile_source_free(&rsrc);
  free(made);
  if (rc != 0) return -1;
  if (!cr->ok) {
    /* the reference's program has no parameter defines: a parameter the template reads without
     * a default of its own is undefined there, which the reference's `defines` answers */
    const char *undef = NULL;
    const configset *cs = space_configs(s);
    for (int p = 0; !strcmp(what, "reference") && cr->message && p < configset_nparams(cs) && !undef; p++) {
      char pat[512];
      snprintf(pat, sizeof pat, "identifier \"%s\" is undefined", configset_param(cs, p)->name);
      if (strstr(cr->message, pat)) undef = configset_param(cs, p)->name;
    }
    if (undef)
      return cterr_set(err,
                       "%s: the reference kernel '%s' does not compile: %s (the reference is compiled without the "
                       "parameters' -D: give the values it needs as reference.defines = { %s = ..., ... }, or a "
                       "default in the template: docs/SPACE.md, Reference)",
                       space_path(s), kernel, cr->message, undef);
    return cterr_set(err, "%s: the %s kernel '%s' does not compile: %s", space_path(s), what, kernel, cr->message);
  }
  return 0;
}

/* How many times word occurs in text as a whole identifier. */
static int count_word(const char *text, const char *word) {
  size_t n = strlen(word);
  int k = 0;
  for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
    int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
    int after = isalnum((unsigned char)p[n]) || p[n] == '_';
    k += !before && !after;
  }
  return k;
}

void job_check_params(const space *s, const compile_source *src, dbuf *warn) {
  const configset *cs = space_configs(s);
  int nf = src->nfiles > 0 ? src->nfiles : 1;
  dbuf *texts = xcalloc((size_t)nf, sizeof *texts);
  for (int f = 0; f < nf; f++) {
    dbuf_init(&texts[f]);
    cterr e;
    if (f == 0) dbuf_puts(&texts[0], src->text.data ? src->text.data : "");
    else if (file_read(src->files[f], &texts[f], &e) != 0) dbuf_reset(&texts[f]);
    if (!texts[f].data) dbuf_puts(&texts[f], "");
  }
  dbuf lua;
  dbuf_init(&lua);
  cterr e;
  if (file_read(space_path(s), &lua, &e) != 0 || !lua.data) dbuf_puts(&lua, "");
  for (int p = 0; p < configset_nparams(cs); p++) {
    const char *name = configset_param(cs, p)->name;
    if (space_param_runtime(s, p)) continue; /* a kernel argument, no macro */
    /* a parameter the space's own functions read (p.B in block or grid) may steer the launch
     * alone: only one the space declares and nothing else names is certainly idle */
    if (count_word(lua.data, name) > 1) continue;
    int seen = 0;
    for (int f = 0; f < nf && !seen; f++) seen = count_word(texts[f].data, name) > 0;
    if (!seen)
      dbuf_printf(warn,
                  "%s: warning: parameter %s appears nowhere in %s%s, so -D%s=... changes nothing there: is it "
                  "misspelt? (a #ifndef %s default in the template would then apply to every configuration)\n",
                  space_path(s), name, space_template_path(s), nf > 1 ? " or the files it includes" : "", name, name);
  }
  for (int f = 0; f < nf; f++) dbuf_free(&texts[f]);
  free(texts);
  dbuf_free(&lua);
}

int job_space_check_hashes(space *s, char (**out)[33], cterr *err) {
  compile_source src;
  compile_source_init(&src);
  *out = xcalloc((size_t)space_nproblems(s) + 1, sizeof **out);
  int rc = job_load_source(s, &src, err);
  if (rc == 0) rc = job_check_hashes(s, &src, *out, err);
  compile_source_free(&src);
  if (rc != 0) free(*out), *out = NULL;
  return rc;
}

int job_compile_reference(const space *s, const char *arch, cpool *pool, compile_result *cr, cterr *err) {
  compile_result_init(cr);
  if (!space_ref_kernel(s) || space_ref_per_config(s)) return 0; /* none, or one in every configuration's program */
  const char *defs[COMPILE_MAX_OPTS];
  int nd = 0;
  for (int i = 0; i < space_ref_ndefines(s) && nd < COMPILE_MAX_OPTS; i++) defs[nd++] = space_ref_define(s, i);
  return compile_once(s, arch, pool, space_ref_template_path(s), space_ref_kernel(s), 0, NULL, "-DCUTUNE_REFERENCE=1",
                      nd, defs, "reference", cr, err);
}

int job_compile_check(const space *s, const char *arch, cpool *pool, compile_result *cr, cterr *err) {
  compile_result_init(cr);
  if (!space_check_kernel(s)) return 0;
  return compile_once(s, arch, pool, space_check_template_path(s), space_check_kernel(s), 0, NULL, "-DCUTUNE_CHECK=1",
                      0, NULL, "check", cr, err);
}

int job_compile_init(const space *s, const char *arch, cpool *pool, compile_result *cr, cterr *err) {
  compile_result_init(cr);
  int n = space_ninit(s);
  if (!n) return 0;
  const char *names[MAX_LAUNCHES], *const *dn, *const *dv, *defs[COMPILE_MAX_OPTS] = {0};
  for (int k = 1; k < n; k++) names[k - 1] = space_init_kernel(s, k);
  int nd = space_init_defines(s, &dn, &dv);
  if (nd > COMPILE_MAX_OPTS / 2) nd = COMPILE_MAX_OPTS / 2;
  for (int i = 0; i < nd; i++) defs[i] = xasprintf("-D%s=%s", dn[i], dv[i]);
  int rc = compile_once(s, arch, pool, space_template_path(s), space_init_kernel(s, 0), n - 1, names, "-DCUTUNE_INIT=1",
                        nd, defs, "init", cr, err);
  for (int i = 0; i < nd; i++) free((char *)defs[i]);
  return rc;
}

int job_problem_init(space *s, int prob, const compile_result *ini, gpu_problem *gp) {
  if (!ini->ok || !space_ninit(s)) return 0;
  gp->init_cubin = ini->cubin.data;
  gp->init_cubin_len = ini->cubin.len;
  gp->ninit = space_init_steps(s, prob, gp->init);
  for (int k = 0; k < gp->ninit; k++)
    compile_lowered(ini, k, space_init_kernel(s, k), gp->init[k].kernel, sizeof gp->init[k].kernel);
  return gp->ninit;
}

void job_problem_check(const space *s, const compile_result *chk, gpu_problem *gp) {
  static char cname[GPU_NAME_MAX]; /* gpu_setup copies it into its frame */
  if (!chk->ok || !space_check_kernel(s)) return;
  gp->check_cubin = chk->cubin.data;
  gp->check_cubin_len = chk->cubin.len;
  gp->check_kernel = compile_lowered(chk, 0, space_check_kernel(s), cname, sizeof cname);
}

int job_arch_matches(const char *given, const char *dev) {
  size_t n = strlen(dev);
  return !strcmp(given, dev) || (!strncmp(given, dev, n) && (given[n] == 'a' || given[n] == 'f') && !given[n + 1]);
}

void job_hold_free(job_hold *h) {
  for (int i = 0; i < h->n; i++) free(h->opts[i]);
  h->n = 0;
  for (int k = 0; k < COMPILE_MAX_PROGRAMS; k++) free(h->text[k]), h->text[k] = NULL;
  free(h->failed), h->failed = NULL;
}

struct job_ohashes {
  const space *s;
  const compile_source *src;
  char *arch;
  size_t n;
  char (*h)[33]; /* h[cfg][0] == 0: not computed yet (calloc: untouched pages cost nothing) */
  unsigned char *bad;
};

job_ohashes *job_ohashes_new(const space *s, const compile_source *src, const char *arch, cterr *err) {
  job_ohashes *t = xcalloc(1, sizeof *t);
  t->s = s, t->src = src, t->arch = xstrdup(arch);
  t->n = configset_count(space_configs(s));
  t->h = xcalloc(t->n ? t->n : 1, sizeof *t->h);
  t->bad = xcalloc(t->n ? t->n : 1, 1);
  if (t->n) {
    compile_job job;
    job_hold hold;
    int rc = job_make(s, src, 0, arch, &job, &hold, err);
    if (rc == 0) job_options_hash(&job, &hold, t->h[0]);
    job_hold_free(&hold);
    if (rc != 0) {
      job_ohashes_free(t);
      return NULL;
    }
  }
  return t;
}

const char *job_ohash(job_ohashes *t, size_t cfg) {
  if (!t || cfg >= t->n || t->bad[cfg]) return "";
  if (!t->h[cfg][0]) {
    compile_job job;
    job_hold hold;
    cterr e;
    if (job_make(t->s, t->src, cfg, t->arch, &job, &hold, &e) == 0) job_options_hash(&job, &hold, t->h[cfg]);
    else t->bad[cfg] = 1;
    job_hold_free(&hold);
  }
  return t->bad[cfg] ? "" : t->h[cfg];
}

void job_ohashes_free(job_ohashes *t) {
  if (!t) return;
  free(t->arch), free(t->h), free(t->bad), free(t);
}

/* An option as the options hash takes it: an include folder (-IDIR, --include-path=DIR) as the
 * bare flag. A relative folder reaches the job as the path cutune found it at (beside the space,
 * space_parse.c), which depends on the working directory and the space's path as given; what it
 * holds is in the template hash (the digest of every file the program includes), so the folder's
 * name adds nothing a record must match, and records made from anywhere answer one another. */
static void hash_option(sha256_ctx *c, const char *o) {
  if (!strncmp(o, "--include-path=", 15)) o = "--include-path=";
  else if (!strncmp(o, "-I", 2) && o[2]) o = "-I";
  sha256_update(c, o, strlen(o) + 1);
}

void job_options_hash(const compile_job *job, const job_hold *hold, char out[33]) {
  sha256_ctx c;
  uint8_t dg[32];
  sha256_init(&c);
  for (int i = 0; i < job->nopts; i++) hash_option(&c, job->opts[i]);
  sha256_update(&c, job->arch, strlen(job->arch) + 1);
  sha256_update(&c, job->kernel, strlen(job->kernel) + 1);
  for (const compile_job *x = job->next; x; x = x->next) { /* a launch sequence's further programs */
    sha256_update(&c, "next", 5);
    for (int i = 0; i < x->nopts; i++) hash_option(&c, x->opts[i]);
    sha256_update(&c, x->kernel, strlen(x->kernel) + 1);
  }
  if (hold && hold->generated) { /* a generator's programs: what it made (a space without one hashes as before) */
    sha256_update(&c, "template_edit(p)", 17);
    if (hold->failed) sha256_update(&c, "failed", 7); /* the message names the space's path as given */
    for (const compile_job *x = job; x && !hold->failed; x = x->next) sha256_update(&c, x->src_digest, 65);
  }
  sha256_final(&c, dg);
  hex_encode(dg, 16, out);
}

void job_record_base(space *s, size_t cfg, int prob, const char *arch, const compile_result *cr, record *rec,
                     gpu_job *launch) {
  const configset *cs = space_configs(s);
  const uint16_t *row = configset_row(cs, cfg);
  record_init(rec);
  rec->space = xstrdup(space_name(s));
  rec->config = configset_row_key(cs, row);
  rec->problem = xstrdup(space_problem_key(s, prob));
  rec->nparams = configset_nparams(cs);
  for (int p = 0; p < rec->nparams && p < REC_MAX_PARAMS; p++) {
    const cs_param *pp = configset_param(cs, p);
    rec->pname[p] = xstrdup(pp->name);
    rec->pvalue[p] = xstrdup(pp->str[row[p]]);
  }
  char carch[16], unfit[160];
  int fits = space_config_arch(s, cfg, arch, carch, sizeof carch, unfit, sizeof unfit);
  rec->arch = xstrdup(carch);
  rec->nvrtc_version = xstrdup(compile_nvrtc_version());
  rec->timestamp = iso8601_now();
  rec->message = xstrdup("");
  rec->unchecked = space_unchecked(s);
  if (!fits) { /* never compiled: the target lacks what the configuration needs (the space's arch) */
    rec->status = ST_INVALID;
    record_set_str(&rec->message, unfit);
    return;
  }
  if (!cr) return;
  rec->status = cr->ok            ? ST_OK
                : cr->space_fault ? ST_SPACE_ERROR
                : cr->lost        ? ST_WORKER_LOST
                : cr->timed_out   ? ST_COMPILE_TIMEOUT
                                  : ST_COMPILE_ERROR;
  if (!cr->ok) record_set_str(&rec->message, cr->message ? cr->message : "compile error");
  if (rec->status == ST_COMPILE_ERROR && job_over_limit(rec->message)) rec->status = ST_INVALID;
  rec->regs = cr->res.regs;
  rec->smem_static = cr->res.smem_static;
  rec->local_bytes = cr->res.local_bytes;
  rec->spill_stores = cr->res.spill_stores;
  rec->spill_loads = cr->res.spill_loads;
  rec->compile_ms = cr->compile_ms;

  gpu_job own = {0};
  gpu_job *gj = launch ? launch : &own;
  cterr gerr;
  char lhash[33];
  int lr = job_launch_hash(s, cfg, prob, gj, lhash, &gerr);
  if (lhash[0]) record_set_str(&rec->launch_hash, lhash);
  if (lr != 0) {
    /* the space's own code failed (a failure, never answered from the store: the space may be
     * fixed), or the launch is over a limit (data, answered while the launch stays the same) */
    if (cr->ok) {
      rec->status = lr < 0 ? ST_SPACE_ERROR : ST_INVALID;
      record_set_str(&rec->message, gerr.msg);
    }
    return;
  }
  if (cr->ok && space_ref_per_config(s))
    compile_lowered(cr, 1, space_ref_kernel(s), gj->ref_kernel, sizeof gj->ref_kernel);
  if (cr->ok) job_launch_names(s, cr, gj->launches, gj->nlaunches);
  const launch_geom *g = &gj->geom;
  rec->block_threads = (int)launch_threads(g);
  rec->smem_dynamic = (int)g->dyn_smem;
  if (cr->ok && rec->regs >= 0) {
    occupancy_info oi;
    int smem = (rec->smem_static > 0 ? rec->smem_static : 0) + (int)g->dyn_smem;
    if (occupancy_theoretical(arch, rec->block_threads, rec->regs, smem, &oi, &gerr) == 0) {
      rec->occupancy = oi.occupancy;
      record_set_str(&rec->limiter, oi.limiter);
      if (oi.blocks_per_sm == 0) {
        rec->status = ST_INVALID;
        char m[256];
        if (oi.limiter && !strcmp(oi.limiter, "registers"))
          snprintf(m, sizeof m,
                   "limit: a block of %d threads at %d registers each does not fit in a multiprocessor's "
                   "register file on %s (occupancy 0)",
                   rec->block_threads, rec->regs, arch);
        else if (oi.limiter && !strcmp(oi.limiter, "shared_memory"))
          snprintf(m, sizeof m,
                   "limit: %d bytes of shared memory per block do not fit in a multiprocessor's on %s "
                   "(occupancy 0)",
                   smem, arch);
        else
          snprintf(m, sizeof m, "limit: does not fit on a multiprocessor of %s (occupancy 0, limited by %s)", arch,
                   oi.limiter ? oi.limiter : "?");
        record_set_str(&rec->message, m);
      }
    }
  }
}

int job_over_limit(const char *message) {
  /* ptxas' words for a kernel over the architecture's shared memory or registers; compile_now's
   * for static shared memory past 48 KB */
  static const char *const marks[] = {
      "uses too much shared data", "too much shared data",    "bytes of static shared memory; at most",
      "too many resources",        "uses too many registers", NULL};
  for (int i = 0; message && marks[i]; i++)
    if (strstr(message, marks[i])) return 1;
  return 0;
}

const char *job_kernel_name(const space *s, const compile_result *cr, char *buf, size_t n) {
  return compile_lowered(cr, 0, space_kernel(s), buf, n);
}

int job_problem(space *s, int prob, uint64_t seed, const compile_result *ref, gpu_problem *gp, cterr *err) {
  memset(gp, 0, sizeof *gp);
  if (space_args(s, prob, gp->args, &gp->nargs, err) != 0) return -1;
  gp->seed = seed;
  gp->tolerance = space_tolerance(s);
  gp->unchecked = space_unchecked(s);
  gp->ref_per_config = space_ref_per_config(s);
  gp->nsyms = space_symbols(s, prob, gp->syms, gp->symdata);
  for (int i = 0; i < gp->nargs; i++) {
    size_t len;
    gp->argdata[i] = space_arg_data(s, prob, i, &len);
  }
  gp->ref_nargs = space_ref_args(s, gp->ref_arg);
  static char rname[GPU_NAME_MAX]; /* gpu_setup copies it into its frame */
  if (ref->cubin.len && space_ref_kernel(s)) {
    gp->ref_cubin = ref->cubin.data;
    gp->ref_cubin_len = ref->cubin.len;
    gp->ref_kernel = compile_lowered(ref, 0, space_ref_kernel(s), rname, sizeof rname);
  }
  if (!gp->unchecked && !gp->ref_per_config && space_ref_geometry(s, prob, &gp->ref_geom, err) != 0) return -1;
  gp->bytes = space_bytes(s, prob, err);
  gp->flops = space_flops(s, prob, err);
  space_sgemm(s, prob, gp->sgemm);
  gp->gemm_type = space_gemm_type(s);
  return 0;
}
