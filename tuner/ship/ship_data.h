/* ship_data: the measurements `cutune best` and `cutune header` work from — records gathered
 * from any number of cutune stores (results/<device>/<space>.jsonl, or a folder of them) and
 * Kernel Tuner cache files (.json / .json.gz, read by search/replay.c's reader), one record per
 * (device, problem, configuration): the newest wins, as in the store.
 *
 * A Kernel Tuner cache becomes records of the space named in the options (else of its
 * kernel_name): its problem_size is given the names in kt_vars (else "size"), its device's
 * compute capability comes from the built-in table of NVIDIA names or an override.
 *
 * Checks, each a cterr naming the file: a file whose records belong to another space, a file
 * whose parameter names differ from the first file's (or the space's), a file named with no
 * record that ran successfully (a store found in a folder walk with none is passed over with a
 * warning). A folder walk reads <space>.jsonl stores only, never the `cutune explain` sidecars
 * (.explain.jsonl) beside them. Records marked ok whose median is not a positive number
 * (record_timed) are skipped with a warning.
 *
 * Ownership: the set owns its records (copies) and strings. */
#ifndef CUTUNE_SHIP_DATA_H
#define CUTUNE_SHIP_DATA_H

#include <stddef.h>

#include "base/util.h"
#include "store/record.h"

typedef struct ship_opts {
  int any_space;             /* `cutune best`: records of several spaces, no shape checks */
  const char *space_name;    /* only records of this space; NULL: the first file's */
  const char *template_hash; /* cutune records of other template versions are skipped */
  int nparams;               /* the space's parameters, in order (0: the first file's) */
  const char *const *params;
  int nkt_vars; /* names for a Kernel Tuner problem_size, in its order */
  const char *const *kt_vars;
  int ncc; /* --cc NAME=X.Y overrides of the built-in table */
  const char *const *cc_names;
  const int *cc_values; /* 86 for 8.6 */
  /* 1 if the space still has the record's configuration (its values and constraints; NULL:
   * every configuration): those it no longer has (a value dropped from a parameter, a
   * constraint added) are skipped with a warning, so a space narrowed after measuring ships
   * only what it allows */
  int (*in_space)(void *ctx, const record *r);
  void *in_space_ctx;
  /* the check hash (provenance.check_hash) of the record's problem as the space checks it now;
   * NULL where not known (a problem the space no longer has). A record measured under another
   * check of its problem (a tolerance, a reference, a check kernel changed since) is skipped as
   * one of another template is; a record without a check hash (a store of before them) is
   * taken. NULL: every record is taken (`cutune best` without a space) */
  const char *(*check_of)(void *ctx, const record *r);
  void *check_ctx;
} ship_opts;

typedef struct ship_data ship_data;

ship_data *ship_data_new(const ship_opts *o);
void ship_data_free(ship_data *d);
/* Add a file, or every *.jsonl below a folder (for a space name: only <space>.jsonl), in
 * sorted order. Warnings (records skipped) go to warn. */
int ship_data_add(ship_data *d, const char *path, dbuf *warn, cterr *err);

size_t ship_count(const ship_data *d);
const record *ship_get(const ship_data *d, size_t i);
const char *ship_source(const ship_data *d, size_t i); /* the file record i came from */
const char *ship_space(const ship_data *d);            /* NULL until a file was added */
int ship_nparams(const ship_data *d);
const char *ship_param(const ship_data *d, int p);

/* Compute capability as major*10+minor: from "9.0" if given, else the built-in table of
 * device names (A100 80, A4000/A6000/RTX 30xx 86, L4/L40/RTX 40xx 89, H100/H200 90, ...);
 * 0 if unknown. */
int ship_cc_of(const ship_opts *o, const char *device_name, const char *cc_text);
/* The multiprocessors of a GPU by its name (a built-in table of NVIDIA names), 0 if unknown: the
 * block slots of the header rule's fill term (docs/HEADER.md). */
int ship_sms_of(const char *device_name);

#endif
