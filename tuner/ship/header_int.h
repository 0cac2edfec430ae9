/* header_int: the chosen entries, shared by header.c (choice) and header_emit.c (text).
 * Internal to tuner/ship. */
#ifndef CUTUNE_HEADER_INT_H
#define CUTUNE_HEADER_INT_H

#include <stddef.h>

#include "header.h"

typedef struct hdr_entry {
  int level;    /* 0 device, 1 architecture, 2 default */
  int dev;      /* level 0: device index */
  int arch;     /* 86 for sm_86 (level 0: the device's, 0 if unknown) */
  int p;        /* problem index */
  int cfg;      /* configuration index (into cfgs) */
  char *source; /* provenance text */
  double time;  /* ms where one GPU's measurement, else -1 */
  double share; /* the level's best there / this kernel's (worst or mean over its GPUs): 1 = the best */
  int group;    /* its level group (hdr.grp): the kernel set and rule it belongs to */
} hdr_entry;

/* One level group of entries (a device, an architecture, the default): the kernel set chosen
 * for its shapes (header_select.c, select.c) and the rule's leave-one-out figures. */
typedef struct hdr_group {
  int level, dev, arch; /* dev: level 0; arch: level 1 */
  unsigned char *mask;  /* nd: the devices it is chosen over */
  int nshapes, nset, covered, coverable, knn, loo_full, loo_n, loo_judged, loo_within;
  double worst, loo_geo, loo_worst;
  /* what select.c chose from, kept for hdr_rule: shapes (problem indices), candidates
   * (configuration indices), ratios (shapes x candidates), sizes, the set and assignment */
  int *ps, *cand, nc, *set, *assign;
  double *R;
  long long *dims;
  /* the rule's fill term (select.h): whether it is used, and per candidate the GPU's block
   * slots for it (SMs x blocks per SM; 0 unknown) */
  int fill;
  long long *slots;
  struct hdr *h;
} hdr_group;

typedef struct hdr {
  const char *space;
  int mean;
  char **devs;         /* sorted device names */
  int nd, *cc;         /* cc: 90 for 9.0, 0 unknown */
  const char **src_of; /* a file each device's records came from */
  char **cfgs;         /* sorted configuration keys of successful records */
  size_t nc;
  char **probs; /* problem keys, in numeric order of their dimensions */
  int np;
  char **vars; /* problem dimension names */
  int nv;
  long long *dims;  /* np x nv */
  double *t;        /* nd x np x nc times, INFINITY where none */
  const record **r; /* the records behind t */
  double *best;     /* nd x np: each GPU's best time */
  int *bestc;       /* ... and its configuration (-1 none) */
  hdr_entry *e;
  int ne;
  hdr_group *grp;
  int ngrp;
  int *ship, nship; /* shipped configuration id -> cfgs index */
  /* the model of each configuration's grid (header_select.c), fitted when the rule first asks:
   * blocks = gmult x the product over the sizes of ceil(size / tile), tile 0 for a size the grid
   * does not depend on; gstate 0 not fitted yet, 1 fitted, -1 no model */
  header_grid_fn grid;
  void *grid_ctx;
  signed char *gstate;
  long long *gtile, *gmult;
  unsigned *block;  /* per shipped id: block x, y, z, shared bytes */
} hdr;

#define CELL(h, d, p, c) ((((size_t)(d) * (size_t)(h)->np + (size_t)(p)) * (h)->nc) + (size_t)(c))
#define TIME(h, d, p, c) ((h)->t[CELL(h, d, p, c)])
#define REC(h, d, p, c) ((h)->r[CELL(h, d, p, c)])

int hdr_emit(hdr *h, const ship_data *d, const header_opts *o, dbuf *out, cterr *err);

/* Data in the header's text (header_text.c): every string that comes from a store, a cache, the
 * space or the command line goes through one of these, so that no name can end a comment or a
 * string, start a directive or form a trigraph (C99 reads ??/ as a backslash), whatever
 * compiler (C99, C++, nvcc) reads the header.
 *   hdr_comment      inside a block comment, between characters other than '*' and '/': bytes
 *                    outside printable ASCII, '\', and the second character of a * /, / * or ??
 *                    pair become \xNN text;
 *   hdr_comment_pad  the same, then spaces up to width columns (a table cell);
 *   hdr_c_string     a C string literal, quotes included: \" \\ \? and three-digit octal escapes
 *                    for other bytes, so the bytes the program compares are the data's own;
 *   hdr_ident_ok     1 for a C identifier (what may stand as a macro, field or parameter name);
 *   hdr_value_ok     1 for a parameter's value the header may carry as a token and in a C string:
 *                    an integer, or an identifier (a string parameter's type name). */
void hdr_comment(dbuf *b, const char *s);
void hdr_comment_pad(dbuf *b, const char *s, int width);
void hdr_c_string(dbuf *b, const char *s);
int hdr_ident_ok(const char *s);
int hdr_value_ok(const char *s);
void hdr_free(hdr *h);
/* header_entry.c: an entry (source owned by it from then on); the provenance of device d's record of
 * configuration c on problem p, and of a choice c over the devices in mask */
hdr_entry *add_entry(hdr *h, int level, int dev, int arch, int p, int cfg, char *source, double t);
char *measured_source(const hdr *h, int d, int p, int c);
char *portable_source(const hdr *h, const unsigned char *mask, int p, int c, int mean, double score, int cov,
                      int among);

/* header_select.c: the entries, a small kernel set per level group (docs/HEADER.md), and its
 * parts of the text: the selection table of the comment, the ratio table and the selector. */
int hdr_select(hdr *h, const header_opts *o, cterr *err);
/* The ratio of configuration c on problem p at group g, as the rule reads it: >= 1, rounded to
 * 1e-4 (select_round); INFINITY where it was not measured (on every GPU that measured p). */
double hdr_ratio(const hdr *h, int g, int p, int c);
/* The grid model of configuration c (an index into h->cfgs), fitted if it was not yet: 1 and its
 * tiles (h->nv) and multiplier, or 0 where the space's grid is not such a product. */
int hdr_grid_model(hdr *h, int c, const long long **tile, long long *mult);
/* The block slots (SMs x blocks per SM) of configuration c at group g; 0 unknown. */
long long hdr_slots(const hdr *h, int g, int c);
void hdr_emit_selection_comment(dbuf *b, const hdr *h, const header_opts *o);
/* The rule at group g for sizes q (h->nv of them, in h->vars order): the configuration (an index
 * into h->cfgs; -1 if the group has no shape) and the problem it was matched to (*near). */
int hdr_rule(const hdr *h, int g, const long long *q, int *near);
/* What each level's rule gives sizes q, one line per level, into b. */
void hdr_why(dbuf *b, const hdr *h, const long long *q);
void hdr_report_selection(dbuf *b, const hdr *h, double tol); /* the same table, for the terminal */
void hdr_emit_selector(dbuf *b, hdr *h, const char *sid, const char *SID);

#endif
