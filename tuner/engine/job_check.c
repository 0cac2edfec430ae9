/* job_check: the check hash of each problem of a space (job.h) — what decides whether a
 * configuration's outputs pass, hashed as the options hash is, so that a record answers a run
 * only under the check it was measured under (store_find); and the digest of the data of the
 * problem's buffers and symbols that the space fills from values or files (space_data_digest),
 * so that records measured on other data do not answer either. */
#include "job.h"

#include <stdio.h>
#include <string.h>

/* The digest of a program's template and its includes: the space's own (src) where it is the
 * same file, else read and hashed here as the compile would (the space's options give the
 * include folders). */
static int program_digest(const space *s, const compile_source *src, const char *path, dbuf *b, cterr *err) {
  if (!strcmp(path, space_template_path(s))) {
    dbuf_printf(b, " %s", src->digest);
    return 0;
  }
  const char *opts[COMPILE_MAX_OPTS];
  int n = space_noptions(s) < COMPILE_MAX_OPTS ? space_noptions(s) : COMPILE_MAX_OPTS;
  for (int i = 0; i < n; i++) opts[i] = space_option(s, i);
  compile_source cs;
  compile_source_init(&cs);
  int rc = compile_source_load(&cs, path, n, opts, err);
  if (rc == 0) dbuf_printf(b, " %s", cs.digest);
  compile_source_free(&cs);
  return rc;
}

/* What every problem's check shares: the space's tolerance, its check kernel and the reference's
 * identity (its kernel, template, defines and arguments, whether each configuration's program
 * holds it). */
static int shared_part(const space *s, const compile_source *src, dbuf *b, cterr *err) {
  dbuf_printf(b, "tolerance %.17g\n", space_tolerance(s));
  if (space_check_kernel(s)) {
    dbuf_printf(b, "check kernel %s template", space_check_kernel(s));
    if (program_digest(s, src, space_check_template_path(s), b, err) != 0) return -1;
    dbuf_puts(b, "\n");
  }
  if (!space_ref_kernel(s)) return 0;
  dbuf_printf(b, "reference %s per_config %d template", space_ref_kernel(s), space_ref_per_config(s));
  if (program_digest(s, src, space_ref_template_path(s), b, err) != 0) return -1;
  for (int i = 0; i < space_ref_ndefines(s); i++) dbuf_printf(b, " %s", space_ref_define(s, i));
  int8_t args[MAX_ARGS];
  int n = space_ref_args(s, args);
  dbuf_puts(b, " args");
  for (int i = 0; i < n; i++) dbuf_printf(b, " %d", args[i]);
  dbuf_puts(b, "\n");
  return 0;
}

/* Problem prob's part: each compared buffer's comparison and the reference's launch. */
static int problem_part(space *s, int prob, dbuf *b, cterr *err) {
  argspec args[MAX_ARGS];
  int n = 0;
  if (space_args(s, prob, args, &n, err) != 0) return -1;
  for (int i = 0; i < n; i++) {
    const argspec *a = &args[i];
    if (a->kind != ARG_OUTPUT && a->kind != ARG_INOUT) continue;
    if (a->nocheck) {
      dbuf_printf(b, "arg %d nocheck\n", i); /* its bounds (the space's, folded in) are never used */
      continue;
    }
    dbuf_printf(b, "arg %d kind %d type %s count %lld atol %.17g rtol %.17g reduce %d mismatches %lld\n", i,
                (int)a->kind, elemtype_name(a->type), (long long)a->count, a->atol, a->rtol, (int)a->reduce,
                (long long)a->mismatches);
    if (space_types_describe(s, i, b)) dbuf_puts(b, "\n"); /* its types by configuration and their bounds */
  }
  if (space_ref_kernel(s) && !space_ref_per_config(s)) {
    launch_geom g;
    if (space_ref_geometry(s, prob, &g, err) != 0) return -1;
    dbuf_printf(b, "reference grid %u %u %u block %u %u %u smem %u\n", g.grid[0], g.grid[1], g.grid[2], g.block[0],
                g.block[1], g.block[2], g.dyn_smem);
  }
  return 0;
}

/* The init launches on problem prob (their kernels, defines, arguments and geometry): nothing
 * without any, so the hashes of spaces without init stay as they were. */
static void init_part(const space *s, int prob, dbuf *b) {
  launch_step st[MAX_LAUNCHES];
  int n = space_init_steps(s, prob, st);
  const char *const *dn, *const *dv;
  int nd = n ? space_init_defines(s, &dn, &dv) : 0;
  for (int k = 0; k < n; k++) {
    const launch_geom *g = &st[k].geom;
    dbuf_printf(b, "init %s grid %u %u %u block %u %u %u smem %u args", space_init_kernel(s, k), g->grid[0], g->grid[1],
                g->grid[2], g->block[0], g->block[1], g->block[2], g->dyn_smem);
    for (int a = 0; a < st[k].nargs; a++) dbuf_printf(b, " %d", st[k].arg[a]);
    dbuf_puts(b, " defines");
    for (int i = 0; i < nd; i++) dbuf_printf(b, " %s=%s", dn[i], dv[i]);
    dbuf_puts(b, "\n");
  }
}

int job_check_hashes(space *s, const compile_source *src, char (*out)[33], cterr *err) {
  dbuf shared, b;
  dbuf_init(&shared), dbuf_init(&b);
  int rc = -1;
  /* timing only: nothing is compared, so nothing else of the check matters */
  if (space_unchecked(s)) dbuf_puts(&shared, "cutune check 1\nunchecked\n");
  else {
    dbuf_puts(&shared, "cutune check 1\n");
    if (shared_part(s, src, &shared, err) != 0) goto done;
  }
  for (int p = 0; p < space_nproblems(s); p++) {
    dbuf_reset(&b);
    dbuf_append(&b, shared.data, shared.len);
    if (!space_unchecked(s) && problem_part(s, p, &b, err) != 0) goto done;
    /* the data of buffers filled from the space's values or files (timing only too: the data
     * decides the time as well); nothing for seeded fills, so their hashes stay as they were */
    if (space_data_digest(s, p)[0]) dbuf_printf(&b, "data %s\n", space_data_digest(s, p));
    init_part(s, p, &b); /* what the init launches leave is the data too */
    sha256_hex(b.data, b.len, out[p], 16);
  }
  rc = 0;
done:
  dbuf_free(&shared), dbuf_free(&b);
  return rc;
}
