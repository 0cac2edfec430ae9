/* configset: the valid configurations of a tuning space, as plain data.
 *
 * A configuration is a row of value indices, one per parameter (row[p] indexes the value
 * list of parameter p). A configset holds every valid row, in enumeration order, and offers
 * the primitives search strategies need: count, index, find, uniform sampling, neighbours.
 * It knows nothing of Lua or CUDA: the Lua space fills one through configset_enumerate with
 * a constraint callback; the replay backend fills one from a recorded file.
 *
 * Ownership: the configset owns its parameter names and value strings (copied on add). */
#ifndef CUTUNE_CONFIGSET_H
#define CUTUNE_CONFIGSET_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

#define CS_MAX_PARAMS 64
#define CS_MAX_VALUES 65535

typedef struct cs_param {
  char *name;
  int nvalues;
  char **str;  /* each value as written: "32", "1.5", "float" */
  double *num; /* numeric form for models and distances; NAN where not a number */
} cs_param;

typedef struct configset configset;

configset *configset_new(void);
void configset_free(configset *cs);

/* Declare parameter p (in order). Values are copied. Returns its index or -1. */
int configset_add_param(configset *cs, const char *name, int nvalues, const char *const *str, const double *num,
                        cterr *err);
int configset_nparams(const configset *cs);
const cs_param *configset_param(const configset *cs, int p);
int configset_param_index(const configset *cs, const char *name); /* -1 if none */
/* Product of the cardinalities (the raw size before constraints), as a double. */
double configset_raw_size(const configset *cs);

/* Add one valid row (nparams indices). Duplicates are ignored (returns the existing index). */
size_t configset_add(configset *cs, const uint16_t *row);
size_t configset_count(const configset *cs);
const uint16_t *configset_row(const configset *cs, size_t i);
/* Index of row, or -1 if it is not a valid configuration. */
long configset_find(const configset *cs, const uint16_t *row);
/* The index of the configuration whose parameters have these values (n name/value pairs as
 * text, in any order, as a record holds them); -1 when a parameter is missing, a value is not
 * one of its values, or the row is not a valid configuration. */
long configset_find_named(const configset *cs, int n, char *const *names, char *const *values);
/* The same, saying what went wrong: -1 when a parameter is not named or its value is not one the
 * set lists (*bad, when not NULL: that parameter's index), -2 when the values are no valid
 * configuration (a constraint rejects them). */
long configset_lookup_named(const configset *cs, int n, char *const *names, char *const *values, int *bad);

/* Constraint callback for enumeration: called once parameters 0..depth are bound in row.
 * Return 1 to keep the partial configuration, 0 to prune it, -1 on error (err filled). */
typedef int (*configset_check_fn)(void *ctx, int depth, const uint16_t *row, cterr *err);
/* Enumerate every row of the declared parameters that passes check at each depth (check
 * may be NULL). Rows are added in lexicographic order of value indices. */
int configset_enumerate(configset *cs, configset_check_fn check, void *ctx, cterr *err);
/* At most max valid rows (0: no cap, the default): enumeration past it fails with a message
 * naming the cap, before the rows exhaust memory. */
void configset_set_max(configset *cs, size_t max);

size_t configset_sample(const configset *cs, rng *r); /* uniform over valid rows; count > 0 */
/* A small set of valid rows that together use every value of every parameter (each value some
 * valid row has), chosen greedily (ties by r): up to max indices into out, distinct; returns
 * how many. Compile-only's --sample starts from it, so a sample reaches every branch of a
 * template that a parameter value selects. */
size_t configset_cover(const configset *cs, rng *r, size_t *out, size_t max);

typedef enum {
  CS_HAMMING,  /* any other value of one parameter */
  CS_ADJACENT, /* the previous or next value (by position in the list) of one parameter */
} cs_neighbour_kind;
/* Fill out[] with up to max indices of valid neighbours of row i; returns how many were found
 * (possibly more than max: then only max were written). */
size_t configset_neighbours(const configset *cs, size_t i, cs_neighbour_kind kind, size_t *out, size_t max);

/* "TILE=64,PAD=1" — canonical text of a row (caller frees). */
char *configset_row_key(const configset *cs, const uint16_t *row);

#endif
