/* explain_int: what explain.c (choosing, running the tools) and explain_table.c (printing)
 * share inside `cutune explain`. */
#ifndef CUTUNE_CLI_EXPLAIN_INT_H
#define CUTUNE_CLI_EXPLAIN_INT_H

#include "explain/ncu.h"
#include "explain/sanitize.h"
#include "store/record.h"

#define MAX_PICKS 32

/* One configuration to explain: why it was chosen, its store record, what the tools found. */
typedef struct pick {
  char *config;
  char label[96];
  const record *rec; /* the store's newest record on the problem, NULL if none */
  int have_m;
  ncu_metrics m;
  double median_ms, isolated_ms;
  san_verdict v[SAN_NTOOLS];
  int ran[SAN_NTOOLS];
} pick;

/* The side-by-side table, the readings (each with what differs from #1) and the note on times. */
void explain_print_table(const pick *pk, int n, const char *sname, const char *pkey, const char *device);

#endif
