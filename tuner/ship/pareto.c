/* pareto: see pareto.h. */
#include "pareto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int objectives_parse(const char *text, objective *out, int *n, cterr *err) {
  *n = 0;
  char *copy = xstrdup(text), *save = NULL;
  int rc = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
    char *dir = strchr(tok, ':');
    int max = 0;
    if (dir) {
      *dir++ = 0;
      if (!strcmp(dir, "max")) max = 1;
      else if (strcmp(dir, "min"))
        rc = cterr_set(err, "objective '%s': direction must be min or max (got '%s')", tok, dir);
    }
    if (rc == 0 && !record_field_known(tok))
      rc = cterr_set(err, "unknown objective '%s' (expected one of: %s)", tok, record_field_names());
    if (rc == 0 && *n >= PARETO_MAX_OBJ) rc = cterr_set(err, "at most %d objectives", PARETO_MAX_OBJ);
    if (rc == 0) {
      snprintf(out[*n].name, sizeof out[*n].name, "%s", tok);
      out[(*n)++].maximise = max;
    }
  }
  free(copy);
  if (rc == 0 && *n == 0) rc = cterr_set(err, "no objectives given (expected e.g. time,energy)");
  return rc;
}

/* 1 when a dominates b (a, b: the objective values, already signed so that lower is better). */
static int dominates(const double *a, const double *b, int nobj) {
  int better = 0;
  for (int k = 0; k < nobj; k++) {
    if (a[k] > b[k]) return 0;
    if (a[k] < b[k]) better = 1;
  }
  return better;
}

size_t pareto_front(const record *const *recs, size_t n, const objective *obj, int nobj, int *front) {
  double *v = xcalloc(n * (size_t)nobj + 1, sizeof(double));
  for (size_t i = 0; i < n; i++) {
    front[i] = record_timed(recs[i]); /* a negative or NaN time is no point of any front */
    for (int k = 0; k < nobj; k++) {
      double x = record_field(recs[i], obj[k].name);
      if (!isfinite(x)) front[i] = 0;
      v[i * nobj + k] = obj[k].maximise ? -x : x;
    }
  }
  size_t count = 0;
  for (size_t i = 0; i < n; i++) {
    if (!front[i]) continue;
    for (size_t j = 0; j < n && front[i]; j++)
      if (j != i && record_timed(recs[j]) && dominates(v + j * nobj, v + i * nobj, nobj)) {
        int complete = 1;
        for (int k = 0; k < nobj; k++) complete &= isfinite(v[j * nobj + k]) != 0;
        if (complete) front[i] = 0;
      }
    count += front[i] != 0;
  }
  free(v);
  return count;
}
