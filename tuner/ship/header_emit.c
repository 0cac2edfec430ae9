/* header_emit: the text of the header (see header.h for what it holds and why). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "header_int.h"

static char *ident(const char *s, int upper) {
  char *r = xstrdup(s);
  for (char *c = r; *c; c++) {
    if (!isalnum((unsigned char)*c)) *c = '_';
    else *c = (char)(upper ? toupper((unsigned char)*c) : tolower((unsigned char)*c));
  }
  if (isdigit((unsigned char)r[0])) {
    char *t = xasprintf("_%s", r);
    free(r);
    r = t;
  }
  return r;
}

/* Any record of configuration c (for its parameter values and geometry). */
static const record *rec_of(const hdr *h, int c) {
  for (int d = 0; d < h->nd; d++)
    for (int p = 0; p < h->np; p++)
      if (REC(h, d, p, c)) return REC(h, d, p, c);
  return NULL;
}

static const char *pvalue(const record *r, const char *name) {
  for (int k = 0; k < r->nparams; k++)
    if (!strcmp(r->pname[k], name)) return r->pvalue[k];
  return NULL;
}

static int shipped_id(const hdr *h, int c) {
  for (int i = 0; i < h->nship; i++)
    if (h->ship[i] == c) return i;
  return -1;
}

/* The entry of level/arch (or device) for problem p, -1 if none. */
static int entry_for(const hdr *h, int level, int key, int p) {
  for (int i = 0; i < h->ne; i++) {
    const hdr_entry *e = &h->e[i];
    if (e->level == level && e->p == p && (level == 0 ? e->dev == key : level == 1 ? e->arch == key : 1)) return i;
  }
  return -1;
}

static void share_cell(dbuf *b, const hdr *h, int d, int p, int e) {
  if (e < 0) {
    dbuf_printf(b, "  %12s", "-");
    return;
  }
  double t = TIME(h, d, p, h->e[e].cfg), best = h->best[(size_t)d * h->np + p];
  if (isfinite(t)) dbuf_printf(b, "  %10.1f %%", 100 * best / t);
  else dbuf_printf(b, "  %12s", "not measured");
}

static void comment_table(dbuf *b, const hdr *h) {
  dbuf_printf(b,
              " * Performance portability: the share of each GPU's own best time that the portable default\n"
              " * (and the GPU's architecture entry) reaches on that GPU, per problem measured.\n *\n");
  dbuf_printf(b, " *   %-28s %-22s %10s  %12s  %12s\n", "GPU", "problem", "own best", "default", "arch entry");
  for (int d = 0; d < h->nd; d++)
    for (int p = 0; p < h->np; p++) {
      if (h->bestc[(size_t)d * h->np + p] < 0) continue;
      dbuf_puts(b, " *   ");
      hdr_comment_pad(b, h->devs[d], 28);
      dbuf_puts(b, " ");
      hdr_comment_pad(b, h->probs[p], 22);
      dbuf_printf(b, " %7.4g ms", h->best[(size_t)d * h->np + p]);
      share_cell(b, h, d, p, entry_for(h, 2, 0, p));
      share_cell(b, h, d, p, h->cc[d] ? entry_for(h, 1, h->cc[d], p) : -1);
      dbuf_puts(b, "\n");
    }
}

/* A problem variable becomes a parameter of cutune_<space>_select: not a keyword, nor a name of
 * the function's own (the table e, the device parameters, the ct_ locals). */
static int var_ok(const char *v) {
  static const char *const taken[] = {
      "e",        "device_name", "cc_major", "cc_minor", "auto",     "bool",     "break",  "case",    "char",
      "class",    "const",       "continue", "default",  "delete",   "do",       "double", "else",    "enum",
      "extern",   "false",       "float",    "for",      "goto",     "if",       "inline", "int",     "long",
      "new",      "operator",    "private",  "public",   "register", "restrict", "return", "short",   "signed",
      "sizeof",   "static",      "struct",   "switch",   "template", "this",     "true",   "typedef", "union",
      "unsigned", "using",       "virtual",  "void",     "volatile", "while"};
  if (!strncmp(v, "ct_", 3)) return 0;
  for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++)
    if (!strcmp(v, taken[i])) return 0;
  return 1;
}

int hdr_emit(hdr *h, const ship_data *d, const header_opts *o, dbuf *out, cterr *err) {
  char *sid = ident(h->space, 0), *SID = ident(h->space, 1);
  int np = ship_nparams(d), rc = -1;
  /* shipped configurations: those of any entry, in key order */
  h->ship = xcalloc(h->nc + 1, sizeof(int));
  for (size_t c = 0; c < h->nc; c++)
    for (int i = 0; i < h->ne; i++)
      if (h->e[i].cfg == (int)c) {
        h->ship[h->nship++] = (int)c;
        break;
      }
  h->block = xcalloc((size_t)h->nship * 4 + 1, sizeof(unsigned));
  /* each parameter's value as the records hold it: an integer, or (a string parameter, where any
   * shipped value is not an integer) a name such as a type, which the macros carry as the token
   * and the entries as a C string */
  const char **val = xcalloc((size_t)h->nship * np + 1, sizeof(char *));
  int *str = xcalloc((size_t)np + 1, sizeof(int));
  for (int i = 0; i < h->nship; i++) {
    const record *r = rec_of(h, h->ship[i]);
    for (int q = 0; q < np; q++) {
      const char *v = pvalue(r, ship_param(d, q));
      char *end = NULL;
      if (!v || !*v || !hdr_value_ok(v)) {
        cterr_set(err, "configuration %s: parameter %s = '%s' cannot stand in the header (an integer or a name)",
                  r->config, ship_param(d, q), v ? v : "(missing)");
        goto done;
      }
      val[(size_t)i * np + q] = v;
      (void)strtoll(v, &end, 10);
      if (*end) str[q] = 1;
    }
    unsigned *g = h->block + 4 * i;
    g[0] = g[1] = g[2] = 1, g[3] = 0;
    if (o->block && o->block(o->block_ctx, r, g, g + 3, err) < 0) goto done;
  }

  for (int k = 0; k < h->nv; k++)
    if (!var_ok(h->vars[k])) {
      cterr_set(err,
                "problem variable '%s' cannot be a parameter of the generated selector (a C or C++ keyword, "
                "e, device_name, cc_major, cc_minor or a ct_ name): rename it in the space",
                h->vars[k]);
      goto done;
    }

  for (int q = 0; q < np; q++)
    if (!hdr_ident_ok(ship_param(d, q))) {
      cterr_set(err, "parameter name '%s' is not a C identifier (the header names macros and fields after it)",
                ship_param(d, q));
      goto done;
    }

  dbuf *b = out;
  dbuf_printf(b, "/* %s.h: the tuned configurations of the space '", sid);
  hdr_comment(b, h->space);
  dbuf_puts(b, "', generated by cutune header.\n * Do not edit: regenerate with\n *   ");
  hdr_comment(b, o->regenerate ? o->regenerate : "cutune header");
  dbuf_puts(b, "\n *\n * Measured on (GPU, architecture, source):\n");
  for (int dv = 0; dv < h->nd; dv++) {
    char arch[16] = "unknown";
    if (h->cc[dv]) snprintf(arch, sizeof arch, "sm_%d", h->cc[dv]);
    dbuf_puts(b, " *   ");
    hdr_comment_pad(b, h->devs[dv], 28);
    dbuf_printf(b, " %-8s ", arch);
    hdr_comment(b, h->src_of[dv] ? h->src_of[dv] : "");
    dbuf_puts(b, "\n");
  }
  dbuf_printf(b,
              " *\n * Selection (cutune_%s_select): the entries of the device name (exact, as the CUDA\n"
              " * runtime's cudaDeviceProp.name), else of its architecture (sm_XY from the compute\n"
              " * capability), else the portable default; within them, the rule of the kernel selection\n"
              " * below (the tuned shapes nearest to the one asked). Over several GPUs a kernel's share of a\n"
              " * shape is its %s share of each GPU's own best time, among the kernels measured on as many\n"
              " * of them as any (cutune header --rule %s).\n *\n",
              sid, h->mean ? "mean" : "worst", h->mean ? "mean" : "worst");
  hdr_emit_selection_comment(b, h, o);
  comment_table(b, h);
  dbuf_printf(b,
              " *\n * Launch contract: an entry carries the parameter values and the block dimensions (and\n"
              " * dynamic shared bytes) the space's block/shared functions give; the launcher computes the\n"
              " * grid from the parameters and the problem the same way the space's grid function does.\n *\n");
  const int *rt = o->runtime;
  int nrt = 0;
  for (int q = 0; rt && q < np; q++) nrt += rt[q] != 0;
  dbuf_printf(b, " * Shipped configurations (one line each, read by cmake/CutuneKernels.cmake):\n");
  if (nrt) {
    dbuf_printf(b,
                " * (runtime parameters, which the lines leave out: they are no -D but the kernel argument the\n"
                " * space gives them, which the launcher passes from the entry:");
    for (int q = 0; q < np; q++)
      if (rt[q]) dbuf_printf(b, " %s", ship_param(d, q));
    dbuf_puts(b, ")\n");
  }
  for (int i = 0; i < h->nship; i++) {
    dbuf_printf(b, " * cutune-config %d", i);
    for (int q = 0; q < np; q++)
      if (!rt || !rt[q]) dbuf_printf(b, " %s=%s", ship_param(d, q), val[(size_t)i * np + q]);
    dbuf_puts(b, "\n");
  }
  dbuf_printf(b, " */\n#ifndef CUTUNE_%s_H_\n#define CUTUNE_%s_H_\n\n#include <stdio.h>\n#include <string.h>\n\n", SID,
              SID);
  dbuf_printf(b, "#define CUTUNE_%s_NCONFIGS %d\n#define CUTUNE_%s_NPARAMS %d\n#define CUTUNE_%s_NDIMS %d\n\n", SID,
              h->nship, SID, np, SID, h->nv);
  for (int q = 0; q < np; q++)
    if (rt && rt[q])
      dbuf_printf(b, "#define CUTUNE_%s_RUNTIME_%s 1 /* a kernel argument, not a -D */\n", SID, ship_param(d, q));
  if (nrt) dbuf_puts(b, "\n");
  dbuf_printf(b, "/* Each shipped configuration as an X-macro: X(NAME, value) per parameter. */\n");
  for (int i = 0; i < h->nship; i++) {
    dbuf_printf(b, "#define CUTUNE_%s_CONFIG_%d(X)", SID, i);
    for (int q = 0; q < np; q++) dbuf_printf(b, " X(%s, %s)", ship_param(d, q), val[(size_t)i * np + q]);
    dbuf_puts(b, "\n");
  }
  /* device code of one target */
  dbuf_printf(b,
              "\n/* Device code built for one target: CUTUNE_%s_<PARAM> are the parameters of the entry of\n"
              " * that architecture (CUTUNE_%s_ARCH, e.g. 90, else __CUDA_ARCH__ / 10) at its largest problem,\n"
              " * or of the portable default for an architecture without an entry. */\n",
              SID, SID);
  dbuf_printf(b,
              "#if defined(CUTUNE_%s_ARCH)\n#define CUTUNE_%s_TARGET_ CUTUNE_%s_ARCH\n#elif defined(__CUDA_ARCH__)\n"
              "#define CUTUNE_%s_TARGET_ (__CUDA_ARCH__ / 10)\n#else\n#define CUTUNE_%s_TARGET_ 0\n#endif\n",
              SID, SID, SID, SID, SID);
  int first_if = 1;
  for (int i = 0; i < h->ne; i++) {
    const hdr_entry *e = &h->e[i];
    if (e->level == 0) continue;
    int lastp = 1; /* the group's largest problem (entries are in problem order) */
    for (int j = i + 1; j < h->ne; j++) lastp &= !(h->e[j].level == e->level && h->e[j].arch == e->arch);
    if (!lastp) continue;
    if (e->level == 1) dbuf_printf(b, "#%s CUTUNE_%s_TARGET_ == %d\n", first_if ? "if" : "elif", SID, e->arch);
    else dbuf_printf(b, first_if ? "#if 1\n" : "#else\n");
    first_if = 0;
    int sh = shipped_id(h, e->cfg);
    for (int q = 0; q < np; q++)
      dbuf_printf(b, "#define CUTUNE_%s_%s %s\n", SID, ship_param(d, q), val[(size_t)sh * np + q]);
  }
  if (!first_if) dbuf_puts(b, "#endif\n");

  /* the entry type and the selector */
  dbuf_printf(b,
              "\ntypedef struct cutune_%s_entry {\n"
              "  int level;              /* 0: this device, 1: its architecture, 2: portable default */\n"
              "  const char *device;     /* level 0: the device name, else \"\" */\n"
              "  int arch;               /* 90 for sm_90 (level 2: 0) */\n"
              "  long long problem[%d];   /* the measured problem:",
              sid, h->nv);
  for (int k = 0; k < h->nv; k++) dbuf_printf(b, " %s", h->vars[k]);
  dbuf_printf(b, " */\n  int config;             /* shipped configuration, 0 .. CUTUNE_%s_NCONFIGS-1 */\n", SID);
  for (int q = 0; q < np; q++) dbuf_printf(b, "  %s%s;\n", str[q] ? "const char *" : "int ", ship_param(d, q));
  dbuf_printf(
      b,
      "  unsigned block[3];      /* threads per block */\n"
      "  unsigned shared_bytes;  /* dynamic shared memory per block */\n"
      "  double time_ms;         /* this configuration's median at that problem (-1: a choice over several GPUs) */\n"
      "  double share;           /* the best there / this configuration's time (worst or mean over the GPUs) */\n"
      "  int knn;                /* the rule's k at this entry's level */\n"
      "  int fill;               /* the rule weighs by the GPU's fill at this entry's level */\n"
      "  int grp;                /* this entry's level group (the fill term's block slots) */\n"
      "  const char *source;     /* where it came from */\n} cutune_%s_entry;\n\n",
      sid);
  dbuf_printf(
      b,
      "/* Every entry: per level (device, architecture, default), one per tuned shape, with the kernel of\n"
      " * the level's set it gets (Kernel selection, above). */\n"
      "static inline const cutune_%s_entry *cutune_%s_entries_(int *ct_n) {\n  static const cutune_%s_entry e[] = {\n",
      sid, sid, sid);
  for (int i = 0; i < h->ne; i++) {
    const hdr_entry *e = &h->e[i];
    int sh = shipped_id(h, e->cfg);
    dbuf_puts(b, "    /* ");
    if (e->level == 0) dbuf_puts(b, "device "), hdr_comment(b, h->devs[e->dev]);
    else if (e->level == 1) dbuf_printf(b, "arch sm_%d", e->arch);
    else dbuf_puts(b, "default");
    dbuf_puts(b, ", ");
    hdr_comment(b, h->probs[e->p]);
    dbuf_puts(b, ": ");
    hdr_comment(b, h->cfgs[e->cfg]);
    dbuf_printf(b, " */\n    {%d, ", e->level);
    hdr_c_string(b, e->level == 0 ? h->devs[e->dev] : "");
    dbuf_printf(b, ", %d, {", e->level == 2 ? 0 : e->arch);
    for (int k = 0; k < h->nv; k++) dbuf_printf(b, "%s%lld", k ? ", " : "", h->dims[(size_t)e->p * h->nv + k]);
    dbuf_printf(b, "}, %d,", sh);
    for (int q = 0; q < np; q++) dbuf_printf(b, str[q] ? " \"%s\"," : " %s,", val[(size_t)sh * np + q]);
    unsigned *g = h->block + 4 * sh;
    dbuf_printf(b, " {%u, %u, %u}, %u, %.6g, %.4f, %d, %d, %d,\n     ", g[0], g[1], g[2], g[3], e->time, e->share,
                h->grp[e->group].knn, h->grp[e->group].fill, e->group);
    hdr_c_string(b, e->source);
    dbuf_puts(b, "},\n");
  }
  dbuf_printf(b, "  };\n  *ct_n = (int)(sizeof e / sizeof e[0]);\n  return e;\n}\n\n");
  /* the locals are ct_-prefixed: the parameters carry the problem variables' own names */
  hdr_emit_selector(b, h, sid, SID);
  dbuf_puts(b, "\n#endif\n");
  rc = 0;
done:
  free(val), free(str), free(sid), free(SID);
  return rc;
}
