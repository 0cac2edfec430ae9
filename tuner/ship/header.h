/* header: the deterministic C header of one space's tuned configurations (`cutune header`).
 *
 * From the successful records of a ship_data set it chooses, per problem measured:
 *   - per device (exact name): that GPU's fastest configuration;
 *   - per architecture (sm_XY from the compute capability): the portable choice over the GPUs
 *     of that architecture (that GPU's fastest when there is one);
 *   - the portable default over every GPU.
 * The portable choice over a set of GPUs that measured a problem: among the configurations
 * measured successfully on all of them, the one whose worst share of a GPU's own best time
 * (best_g / time_g(c)) is highest (or, with mean, whose mean share is highest); ties go to the
 * configuration key that sorts first. If no configuration ran on all of them, those that ran on
 * the most are the candidates and the header says so.
 *
 * The header holds: the performance-portability table (per GPU and problem, the share of its
 * own best that the default and its architecture's entry reach), one line per shipped
 * configuration for build tools ("cutune-config ID NAME=V ..."), an X-macro per configuration,
 * macros for device code of one target, and a C99/C++ selector
 *   const cutune_<space>_entry *cutune_<space>_select(device_name, cc_major, cc_minor, dims...)
 * choosing device -> architecture -> default, then the nearest measured problem: the least
 * sum over dimensions of |ln(asked / measured)|, computed as the product of the ratios
 * max/min (no libm). Each entry names its source (GPU, date, time, share of the copy bandwidth).
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

typedef struct header_opts {
  int mean;                 /* portable choice by mean share instead of worst share */
  const char *regenerate;   /* the command line that regenerates it, for the comment */
  header_block_fn block;
  void *block_ctx;
  const int *runtime;       /* per parameter (ship order): 1 for a runtime parameter, which the
                               cutune-config lines leave out (no -D: the launcher passes it as the
                               kernel argument the space gives it); NULL: none */
} header_opts;

int header_write(const ship_data *d, const header_opts *o, dbuf *out, dbuf *warn, cterr *err);

#endif
