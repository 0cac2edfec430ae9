/* compile_batch: the source of one NVRTC program that compiles several configurations of one
 * template (compile_now_batch in compile.c runs it), and which jobs may share one.
 *
 * Why: NVRTC has a fixed cost per program (its built-in headers, NVVM's and ptxas' start-up:
 * ~30-40 ms of CPU on the 2-core development machine, docs/PERFORMANCE.md) that a batch pays once.
 * How, as cmake/CutuneKernels.cmake builds the shipped configurations for production: each
 * member #defines its parameters, renames the kernel to cutune_b<i>_<kernel> and includes the
 * template, here inside a namespace of its own (cutune_b<i>), so that the template's helpers do
 * not collide between members; then every macro it defined is #undef'd, so the next member
 * starts from a clean slate (the template's own defaults, `#ifndef TILE`, apply again). The
 * template reaches NVRTC as an in-memory header under its own path, so messages and line numbers
 * are the template's own, as in a compile alone.
 *
 * Which templates: those that include nothing (an included header's guard or `#pragma once`
 * would hide it from every member but the first), have no `#pragma once`, whose kernel is a
 * plain identifier (an extern "C" name, or a C++ function's: each member's kernel is found in
 * the cubin by the name expression cutune_b<i>::cutune_b<i>_<kernel>, lowered, as compile.c
 * does for a kernel alone), whose job names nothing else (other kernels, a reference in its
 * program) and chains no further program, and whose space fills no __constant__ or __device__
 * variable (compile_job.alone: the GPU worker finds those by their own names, which a member's
 * namespace would change). Anything else the batch cannot compile — a template that defines an
 * extern "C" function besides the kernel, or specialises a template of another namespace —
 * fails the batch, whose members are then compiled alone (compile_pool.c), which
 * also turns batching off for the rest of the run when they all compile alone. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "compile_int.h"

static int is_ident(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
  return 1;
}

/* The directive of the line at p ("include", "define", "pragma" ...) and, after it, where its
 * argument starts; 0 when the line is not a directive. */
static int directive(const char *p, const char *le, const char **word, size_t *wlen, const char **rest) {
  while (p < le && (*p == ' ' || *p == '\t')) p++;
  if (p >= le || *p != '#') return 0;
  p++;
  while (p < le && (*p == ' ' || *p == '\t')) p++;
  const char *w = p;
  while (p < le && isalpha((unsigned char)*p)) p++;
  *word = w, *wlen = (size_t)(p - w);
  while (p < le && (*p == ' ' || *p == '\t')) p++;
  *rest = p;
  return *wlen > 0;
}

/* Each line of text: fn(line start, line end, arg); stops when fn returns nonzero. */
static int each_line(const char *text, int (*fn)(const char *, const char *, void *), void *arg) {
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n'), *le = nl ? nl : p + strlen(p);
    if (fn(p, le, arg)) return 1;
    p = nl ? nl + 1 : le;
  }
  return 0;
}

static int unsafe_line(const char *p, const char *le, void *arg) {
  (void)arg;
  const char *w, *rest;
  size_t n;
  if (!directive(p, le, &w, &n, &rest)) return 0;
  if (n == 7 && !strncmp(w, "include", 7)) return 1;
  return n == 6 && !strncmp(w, "pragma", 6) && le - rest >= 4 && !strncmp(rest, "once", 4);
}

int compile_batch_safe(const compile_job *job) {
  /* names (symbols, other kernels) and further programs are looked up by their own names in
   * the module: a member's would be cutune_b<i>::... */
  return job && job->src && !job->alone && is_ident(job->kernel) && job->nnames == 0 && !job->next && !job->twice &&
         !each_line(job->src, unsafe_line, NULL);
}

/* a "-DNAME..." option (one argument; "-D" "NAME" as two is not taken apart) */
static int is_define(const char *o) { return o[0] == '-' && o[1] == 'D' && o[2]; }

/* Whether option o is in every job's list. */
static int in_all(const compile_job *jobs, int n, const char *o) {
  for (int i = 0; i < n; i++) {
    int found = 0;
    for (int k = 0; k < jobs[i].nopts && !found; k++) found = !strcmp(jobs[i].opts[k], o);
    if (!found) return 0;
  }
  return 1;
}

int compile_batch_compatible(const compile_job *a, const compile_job *b) {
  if (!compile_batch_safe(a) || !compile_batch_safe(b)) return 0;
  if (strcmp(a->arch, b->arch) || strcmp(a->kernel, b->kernel) || a->lineinfo != b->lineinfo) return 0;
  if (strcmp(a->src_path ? a->src_path : "", b->src_path ? b->src_path : "")) return 0;
  if (a->src_digest && b->src_digest ? strcmp(a->src_digest, b->src_digest) : strcmp(a->src, b->src)) return 0;
  /* the options that are not -D, in order: the same for both (they apply to the whole program) */
  int i = 0, k = 0;
  for (;;) {
    while (i < a->nopts && is_define(a->opts[i])) i++;
    while (k < b->nopts && is_define(b->opts[k])) k++;
    if (i == a->nopts || k == b->nopts) return i == a->nopts && k == b->nopts;
    if (strcmp(a->opts[i++], b->opts[k++])) return 0;
  }
}

typedef struct macro_list {
  dbuf *out; /* "#undef NAME\n" lines */
  dbuf seen; /* " NAME " for each already listed */
} macro_list;

static void add_undef(macro_list *m, const char *name, size_t n) {
  dbuf key;
  dbuf_init(&key);
  dbuf_printf(&key, " %.*s ", (int)n, name);
  if (!m->seen.len) dbuf_puts(&m->seen, " ");
  if (!strstr(m->seen.data, key.data)) {
    dbuf_puts(&m->seen, key.data + 1);
    dbuf_printf(m->out, "#undef %.*s\n", (int)n, name);
  }
  dbuf_free(&key);
}

static int define_line(const char *p, const char *le, void *arg) {
  const char *w, *rest;
  size_t n;
  if (directive(p, le, &w, &n, &rest) && n == 6 && !strncmp(w, "define", 6)) {
    const char *e = rest;
    while (e < le && (isalnum((unsigned char)*e) || *e == '_')) e++;
    if (e > rest) add_undef(arg, rest, (size_t)(e - rest));
  }
  return 0;
}

void compile_batch_source(const compile_job *jobs, int n, dbuf *src, const char **common, int *ncommon) {
  const compile_job *j0 = &jobs[0];
  *ncommon = 0;
  for (int k = 0; k < j0->nopts; k++) /* on the command line: what every member has */
    if (!is_define(j0->opts[k]) || in_all(jobs, n, j0->opts[k])) common[(*ncommon)++] = j0->opts[k];
  dbuf_printf(src, "// cutune: %d configurations of %s in one NVRTC program (compile_batch.c)\n", n,
              j0->src_path ? j0->src_path : "kernel.cu");
  for (int i = 0; i < n; i++) {
    dbuf undefs;
    dbuf_init(&undefs);
    macro_list m = {&undefs, {0}};
    dbuf_init(&m.seen);
    add_undef(&m, j0->kernel, strlen(j0->kernel));
    for (int k = 0; k < jobs[i].nopts; k++) {
      const char *o = jobs[i].opts[k];
      /* every -D as a #define, those of every member too (on the command line as well, for
       * NVRTC's built-in headers): the #undefs after a member may take any of them away */
      if (!is_define(o)) continue;
      const char *name = o + 2, *eq = strchr(name, '=');
      size_t len = strcspn(name, "=(");
      if (eq) dbuf_printf(src, "#define %.*s %s\n", (int)(eq - name), name, eq + 1);
      else dbuf_printf(src, "#define %s 1\n", name);
      add_undef(&m, name, len);
    }
    each_line(j0->src, define_line, &m);
    dbuf_printf(src, "#define %s " COMPILE_BATCH_ENTRY_FMT "\nnamespace cutune_b%d {\n#include \"%s\"\n}\n%s",
                j0->kernel, i, j0->kernel, i, j0->src_path ? j0->src_path : "kernel.cu",
                undefs.data ? undefs.data : "");
    dbuf_free(&undefs);
    dbuf_free(&m.seen);
  }
}
