/* ship_space: the records of a space as it is now, for `cutune header` and `cutune best
 * --space` alike (and `cutune report SPACE.lua` for the checks) — which configuration of the
 * space a record is (if the space still has it: its values and constraints), the ship_opts that
 * keep only such records of the space's current template and checks, and the launch geometry
 * the header carries. */
#ifndef CUTUNE_SHIP_SPACE_H
#define CUTUNE_SHIP_SPACE_H

#include "ship_data.h"
#include "space/space.h"

/* The index in the space of a record's configuration; -1 with err filled when the space does
 * not have it (a value it does not list, or a constraint that rejects it). */
long ship_config_index(const space *s, const record *r, cterr *err);

/* Options for records of space s: its name and parameter names (pnames: storage of
 * CS_MAX_PARAMS entries the options point into), template_hash (as `run` writes it:
 * job_template_hash) and the filter that skips configurations the space no longer has. Other
 * fields are left as they are. */
void ship_opts_for_space(ship_opts *so, const space *s, const char *template_hash, const char **pnames);

/* The check hashes of a space's problems as `run` stamps them (the engine's job_check_hashes,
 * one per problem of s, in its order), for ship_opts_check. */
typedef struct ship_checks {
  const space *s;
  const char (*hash)[33];
} ship_checks;
/* so->check_of over c: a record of a problem the space has answers only under that problem's
 * check hash (c must outlive the options). */
void ship_opts_check(ship_opts *so, ship_checks *c);
/* The records of recs[0..n) that answer the space's check of their problem now (the same rule:
 * store_same_check; a record of a problem the space no longer has is kept), moved to the front in
 * their order (`cutune report SPACE.lua`); returns how many, *other gets how many were left out. */
size_t ship_keep_checked(const ship_checks *c, const record **recs, size_t n, size_t *other);

/* header_block_fn (header.h) over ctx = the space: block dimensions and dynamic shared bytes of
 * the record's configuration at its problem. */
int ship_block_of(void *ctx, const record *r, unsigned block[3], unsigned *shared, cterr *err);
/* header_grid_fn over ctx = the space: the blocks of the record's configuration at sizes dims. */
int ship_grid_of(void *ctx, const record *r, int nv, const char *const *vars, const long long *dims, long long *blocks,
                 cterr *err);

#endif
