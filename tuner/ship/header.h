/* header: the deterministic C header of one space's tuned configurations (`cutune header`).
 *
 * From the successful records of a ship_data set it makes three levels of entries: per device
 * (exact name: its own measurements), per architecture (sm_XY from the compute capability: its
 * devices together) and the portable default (every device). At each level every measured
 * problem (tuned shape) is an entry, and the entries share a small kernel set (header_select.c,
 * select.c): the fewest kernels, at most max_kernels, that bring every shape within `cover` of
 * the best there, each shape getting the fastest of them; a size never tuned gets the kernel of
 * the set with the least sum of ratios over its k nearest tuned shapes, k chosen by
 * leave-one-out, with each ratio scaled by how full the kernel keeps the GPU there over how full
 * at the size asked where leave-one-out says that helps (the fill term: a model of each kernel's
 * grid fitted to the space's grid function, header_select.c). Over several devices a kernel's ratio on a shape is 1 / its worst (or, with
 * mean, mean) share best_g / time_g of the devices that measured it, among the kernels measured
 * on as many of them as any (the portable choice).
 *
 * The header holds: the kernel-selection table (per level: shapes, kernels, coverage, the rule's
 * k and leave-one-out figures), the performance-portability table (per GPU and problem, the
 * share of its own best that the default and its architecture's entry reach), one line per
 * shipped configuration for build tools ("cutune-config ID NAME=V ..."), an X-macro per
 * configuration, macros for device code of one target, the entries, the ratio table, and a
 * C99/C++ selector
 *   const cutune_<space>_entry *cutune_<space>_select(device_name, cc_major, cc_minor, dims...)
 * choosing device -> architecture -> default, then the rule (computed with products of ratios:
 * no libm), with cutune_<space>_why saying why. Each entry names its source (GPU, date, time,
 * share of the copy bandwidth or FLOP rate).
 *
 * The same inputs give the same bytes: everything is sorted, nothing depends on the clock. */
#ifndef CUTUNE_HEADER_H
#define CUTUNE_HEADER_H

#include "base/util.h"
#include "ship_data.h"

/* Launch geometry the header carries: block dimensions and dynamic shared bytes of a record's
 * configuration (the space's block/shared functions); the grid is the launcher's (it depends on
 * the size asked at run time). */
typedef int (*header_block_fn)(void *ctx, const record *r, unsigned block[3], unsigned *shared, cterr *err);
/* The blocks of a record's configuration at sizes dims (nv of them, named vars): the product of
 * the space's grid there. What the rule's model of the grid is fitted to (docs/HEADER.md, "The
 * rule"). */
typedef int (*header_grid_fn)(void *ctx, const record *r, int nv, const char *const *vars, const long long *dims,
                              long long *blocks, cterr *err);

typedef struct header_opts {
  int mean;               /* portable choice by mean share instead of worst share */
  const char *regenerate; /* the command line that regenerates it, for the comment */
  header_block_fn block;
  void *block_ctx;
  header_grid_fn grid; /* NULL: the rule has no model of the grid (no fill term) */
  void *grid_ctx;
  int fill;               /* the rule's fill term: -1 chosen by leave-one-out, 0 off, 1 on */
  const int *runtime;     /* per parameter (ship order): 1 for a runtime parameter, which the
                               cutune-config lines leave out (no -D: the launcher passes it as the
                               kernel argument the space gives it); NULL: none */
  double cover;           /* kernel selection: a kernel covers a shape within this of its best (0.03) */
  int max_kernels;        /* ... at most this many per level (16) */
  int knn;                /* the rule's k for untuned sizes; 0: chosen by leave-one-out */
  dbuf *report;           /* the selection table, for the terminal (NULL: not wanted) */
  const char *const *why; /* sizes as problem keys ("K=100,M=200,N=300"): what the rule gives each, per
                               level, into report */
  int nwhy;
} header_opts;

int header_write(const ship_data *d, const header_opts *o, dbuf *out, dbuf *warn, cterr *err);

#endif
