/* pareto: objectives and non-dominated sets over records.
 *
 * An objective is a numeric record field (record_field: "time", "energy", "regs", "gbps",
 * ...) with a direction. A record dominates another when it is at least as good in every
 * objective and better in one. The front of a set is its non-dominated records; records
 * that lack a figure for one of the objectives (energy is measured near the time front only)
 * or did not run successfully are left out of it. Records equal in every objective are all
 * kept. */
#ifndef CUTUNE_PARETO_H
#define CUTUNE_PARETO_H

#include <stddef.h>

#include "base/util.h"
#include "store/record.h"

#define PARETO_MAX_OBJ 8

typedef struct objective {
  char name[32];
  int maximise;
} objective;

/* "time,energy,regs:min,gbps:max" -> objectives; 0 or -1 with a message naming the bad item. */
int objectives_parse(const char *text, objective *out, int *n, cterr *err);

/* front[i] = 1 for the records on the front; returns how many. */
size_t pareto_front(const record *const *recs, size_t n, const objective *obj, int nobj, int *front);

#endif
