/* configset: see configset.h. Rows live in one flat array; an open-addressing hash table
 * maps a row to its index so that find and neighbours are O(1) per probe. */
#include "configset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct configset {
  int np;
  cs_param params[CS_MAX_PARAMS];
  uint16_t *rows; /* count * np */
  size_t count, cap;
  long *table; /* index into rows, -1 empty */
  size_t tcap; /* power of two */
  size_t max;  /* cap on count during enumeration; 0: none */
};

configset *configset_new(void) { return xcalloc(1, sizeof(configset)); }

void configset_free(configset *cs) {
  if (!cs) return;
  for (int p = 0; p < cs->np; p++) {
    for (int v = 0; v < cs->params[p].nvalues; v++) free(cs->params[p].str[v]);
    free(cs->params[p].str), free(cs->params[p].num), free(cs->params[p].name);
  }
  free(cs->rows), free(cs->table), free(cs);
}

int configset_add_param(configset *cs, const char *name, int nvalues, const char *const *str, const double *num,
                        cterr *err) {
  if (cs->count) return cterr_set(err, "parameter '%s' declared after configurations were added", name);
  if (cs->np >= CS_MAX_PARAMS) return cterr_set(err, "too many parameters (at most %d)", CS_MAX_PARAMS);
  if (nvalues <= 0 || nvalues > CS_MAX_VALUES)
    return cterr_set(err, "parameter '%s' needs 1 to %d values (got %d)", name, CS_MAX_VALUES, nvalues);
  if (configset_param_index(cs, name) >= 0) return cterr_set(err, "parameter '%s' declared twice", name);
  cs_param *pp = &cs->params[cs->np];
  pp->name = xstrdup(name);
  pp->nvalues = nvalues;
  pp->str = xcalloc((size_t)nvalues, sizeof(char *));
  pp->num = xcalloc((size_t)nvalues, sizeof(double));
  for (int v = 0; v < nvalues; v++) {
    pp->str[v] = xstrdup(str[v]);
    if (num) pp->num[v] = num[v];
    else {
      char *end;
      double d = strtod(str[v], &end);
      pp->num[v] = (*str[v] && !*end) ? d : NAN;
    }
  }
  return cs->np++;
}

int configset_nparams(const configset *cs) { return cs->np; }
const cs_param *configset_param(const configset *cs, int p) { return &cs->params[p]; }
int configset_param_index(const configset *cs, const char *name) {
  for (int p = 0; p < cs->np; p++)
    if (!strcmp(cs->params[p].name, name)) return p;
  return -1;
}
double configset_raw_size(const configset *cs) {
  double s = 1;
  for (int p = 0; p < cs->np; p++) s *= cs->params[p].nvalues;
  return s;
}

static uint64_t row_hash(const uint16_t *row, int np) {
  uint64_t h = 1469598103934665603ULL;
  for (int p = 0; p < np; p++) {
    h ^= row[p];
    h *= 1099511628211ULL;
    h ^= h >> 29;
  }
  return h;
}

static void table_insert(configset *cs, size_t idx) {
  size_t mask = cs->tcap - 1, h = (size_t)row_hash(cs->rows + idx * (size_t)cs->np, cs->np) & mask;
  while (cs->table[h] >= 0) h = (h + 1) & mask;
  cs->table[h] = (long)idx;
}

static void table_grow(configset *cs) {
  free(cs->table);
  cs->tcap = cs->tcap ? cs->tcap * 2 : 1024;
  cs->table = xmalloc(cs->tcap * sizeof(long));
  memset(cs->table, 0xff, cs->tcap * sizeof(long));
  for (size_t i = 0; i < cs->count; i++) table_insert(cs, i);
}

long configset_lookup_named(const configset *cs, int n, char *const *names, char *const *values, int *bad) {
  uint16_t row[CS_MAX_PARAMS];
  for (int p = 0; p < configset_nparams(cs); p++) {
    const cs_param *pp = configset_param(cs, p);
    int found = -1;
    for (int k = 0; k < n && found < 0; k++) {
      int q = (p + k) % n; /* the record's order is usually the space's */
      if (!strcmp(names[q], pp->name))
        for (int v = 0; v < pp->nvalues && found < 0; v++)
          if (!strcmp(pp->str[v], values[q])) found = v;
    }
    if (found < 0) {
      if (bad) *bad = p;
      return -1;
    }
    row[p] = (uint16_t)found;
  }
  long cfg = configset_find(cs, row);
  return cfg < 0 ? -2 : cfg;
}

long configset_find_named(const configset *cs, int n, char *const *names, char *const *values) {
  long cfg = n > 0 ? configset_lookup_named(cs, n, names, values, NULL) : -1;
  return cfg < 0 ? -1 : cfg;
}

long configset_find(const configset *cs, const uint16_t *row) {
  if (!cs->tcap) return -1;
  size_t mask = cs->tcap - 1, h = (size_t)row_hash(row, cs->np) & mask;
  size_t bytes = (size_t)cs->np * sizeof(uint16_t);
  while (cs->table[h] >= 0) {
    if (!memcmp(cs->rows + (size_t)cs->table[h] * (size_t)cs->np, row, bytes)) return cs->table[h];
    h = (h + 1) & mask;
  }
  return -1;
}

size_t configset_add(configset *cs, const uint16_t *row) {
  long have = configset_find(cs, row);
  if (have >= 0) return (size_t)have;
  if (cs->count == cs->cap) {
    cs->cap = cs->cap ? cs->cap * 2 : 256;
    cs->rows = xrealloc(cs->rows, cs->cap * (size_t)cs->np * sizeof(uint16_t));
  }
  memcpy(cs->rows + cs->count * (size_t)cs->np, row, (size_t)cs->np * sizeof(uint16_t));
  cs->count++;
  if (cs->count * 2 > cs->tcap) table_grow(cs); /* re-inserts everything, this row too */
  else table_insert(cs, cs->count - 1);
  return cs->count - 1;
}

size_t configset_count(const configset *cs) { return cs->count; }
const uint16_t *configset_row(const configset *cs, size_t i) { return cs->rows + i * (size_t)cs->np; }

/* Enumeration produces distinct rows in order, so they are appended without a lookup and
 * the hash table is built once at the end (a lookup per row and repeated rehashing as the
 * table grows cost more than the constraints of a million-row space). */
static void add_row(configset *cs, const uint16_t *row);
static int enumerate_rows(configset *cs, configset_check_fn check, void *ctx, cterr *err,
                          void (*emit)(configset *, const uint16_t *));

static void append_row(configset *cs, const uint16_t *row) {
  if (cs->count == cs->cap) {
    cs->cap = cs->cap ? cs->cap * 2 : 256;
    cs->rows = xrealloc(cs->rows, cs->cap * (size_t)cs->np * sizeof(uint16_t));
  }
  memcpy(cs->rows + cs->count * (size_t)cs->np, row, (size_t)cs->np * sizeof(uint16_t));
  cs->count++;
}

static void table_rebuild(configset *cs) {
  size_t want = 1024;
  while (want < cs->count * 2 + 2) want *= 2;
  free(cs->table);
  cs->tcap = want;
  cs->table = xmalloc(cs->tcap * sizeof(long));
  memset(cs->table, 0xff, cs->tcap * sizeof(long));
  for (size_t i = 0; i < cs->count; i++) table_insert(cs, i);
}

int configset_enumerate(configset *cs, configset_check_fn check, void *ctx, cterr *err) {
  int np = cs->np;
  if (np == 0) return cterr_set(err, "the space has no parameters");
  if (cs->count == 0) {
    int rc = enumerate_rows(cs, check, ctx, err, append_row);
    table_rebuild(cs);
    return rc;
  }
  return enumerate_rows(cs, check, ctx, err, add_row);
}

static void add_row(configset *cs, const uint16_t *row) { configset_add(cs, row); }

void configset_set_max(configset *cs, size_t max) { cs->max = max; }

static int enumerate_rows(configset *cs, configset_check_fn check, void *ctx, cterr *err,
                          void (*emit)(configset *, const uint16_t *)) {
  int np = cs->np;
  uint16_t row[CS_MAX_PARAMS] = {0};
  int depth = 0;
  /* iterative depth-first walk: row[depth] is the value being tried at depth */
  for (;;) {
    int ok = 1;
    if (check) {
      ok = check(ctx, depth, row, err);
      if (ok < 0) return -1;
    }
    if (ok && depth == np - 1) {
      if (cs->max && cs->count >= cs->max)
        return cterr_set(err,
                         "more than %zu valid configurations (the cap; %.0f raw combinations): add "
                         "constraints, or raise the cap with CUTUNE_MAX_CONFIGS=N",
                         cs->max, configset_raw_size(cs));
      emit(cs, row);
    }
    if (ok && depth < np - 1) {
      row[++depth] = 0;
      continue;
    }
    /* advance to the next value, backtracking past exhausted levels */
    while (depth >= 0 && ++row[depth] >= cs->params[depth].nvalues) depth--;
    if (depth < 0) break;
  }
  return 0;
}

size_t configset_sample(const configset *cs, rng *r) { return (size_t)rng_below(r, cs->count); }

/* Greedy: each step takes the row that uses the most (parameter, value) pairs not used yet,
 * scanning from a random start so that ties fall to the seed. */
size_t configset_cover(const configset *cs, rng *r, size_t *out, size_t max) {
  if (!cs->count || !max) return 0;
  size_t total = 0;
  for (int p = 0; p < cs->np; p++) total += (size_t)cs->params[p].nvalues;
  unsigned char *used = xcalloc(total, 1);
  size_t base[CS_MAX_PARAMS], left = 0, n = 0;
  for (int p = 0, at = 0; p < cs->np; at += cs->params[p].nvalues, p++) base[p] = (size_t)at;
  /* pairs no valid row has cannot be covered: they do not count */
  unsigned char *reachable = xcalloc(total, 1);
  for (size_t i = 0; i < cs->count; i++)
    for (int p = 0; p < cs->np; p++) reachable[base[p] + cs->rows[i * (size_t)cs->np + (size_t)p]] = 1;
  for (size_t k = 0; k < total; k++) left += reachable[k];
  size_t start = (size_t)rng_below(r, cs->count);
  while (left > 0 && n < max) {
    size_t best = 0, best_gain = 0;
    for (size_t j = 0; j < cs->count; j++) {
      size_t i = (start + j) % cs->count, gain = 0;
      const uint16_t *row = cs->rows + i * (size_t)cs->np;
      for (int p = 0; p < cs->np; p++) gain += !used[base[p] + row[p]];
      if (gain > best_gain) best_gain = gain, best = i;
    }
    const uint16_t *row = cs->rows + best * (size_t)cs->np;
    for (int p = 0; p < cs->np; p++) {
      unsigned char *u = &used[base[p] + row[p]];
      if (!*u) *u = 1, left--;
    }
    out[n++] = best;
  }
  free(used), free(reachable);
  return n;
}

size_t configset_neighbours(const configset *cs, size_t i, cs_neighbour_kind kind, size_t *out, size_t max) {
  uint16_t row[CS_MAX_PARAMS];
  size_t n = 0;
  memcpy(row, configset_row(cs, i), (size_t)cs->np * sizeof(uint16_t));
  for (int p = 0; p < cs->np; p++) {
    uint16_t cur = row[p];
    for (int v = 0; v < cs->params[p].nvalues; v++) {
      if (v == cur) continue;
      if (kind == CS_ADJACENT && abs(v - (int)cur) != 1) continue;
      row[p] = (uint16_t)v;
      long j = configset_find(cs, row);
      if (j >= 0) {
        if (n < max) out[n] = (size_t)j;
        n++;
      }
    }
    row[p] = cur;
  }
  return n;
}

char *configset_row_key(const configset *cs, const uint16_t *row) {
  dbuf b;
  dbuf_init(&b);
  for (int p = 0; p < cs->np; p++)
    dbuf_printf(&b, "%s%s=%s", p ? "," : "", cs->params[p].name, cs->params[p].str[row[p]]);
  return dbuf_steal(&b);
}
