/* replay_shapes: a shape set on recorded measurements, cold and with transfer, for
 * `cutune run --replay STORE SPACE.lua --shapes` (replay_main.c parses the options). Prints per
 * shape and in total the evaluations spent and those needed to come within `within` of each
 * shape's recorded optimum. */
#ifndef CUTUNE_REPLAY_SHAPES_H
#define CUTUNE_REPLAY_SHAPES_H

#include "space/space.h"

typedef struct replay_shapes_opts {
  const char *strategy; /* NULL: the default for the budget */
  long budget;          /* evaluations per shape at most */
  uint64_t seed;
  long patience;                        /* transfer: stop after this many evaluations without a TRANSFER_IMPROVE gain */
  int near, per;                        /* transfer: seeds from the `near` nearest shapes, `per` of each */
  double within;                        /* "close enough": within this fraction of the recorded optimum */
  int cold;                             /* also replay each shape without transfer, for comparison */
  int listed;                           /* tune in the listed order, not nearest-first */
  int (*selected)(void *ctx, int prob); /* NULL: every problem */
  void *sel_ctx;
} replay_shapes_opts;

int search_replay_shapes(const char *file, const space *sp, const replay_shapes_opts *o, cterr *err);

#endif
