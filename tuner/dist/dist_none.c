/* dist_none: the build without MPI (CUTUNE_MPI off) — every run is one process. See dist.h. */
#ifndef CUTUNE_MPI
#include <stdlib.h>

#include "dist.h"

struct dist {
  int unused;
};

int dist_open(dist **out, cterr *err) {
  *out = xcalloc(1, sizeof **out);
  return 0;
}
int dist_rank(const dist *d) { return 0; }
int dist_size(const dist *d) { return 1; }
int dist_send(dist *d, int to, int tag, const void *p, size_t n, cterr *err) {
  return cterr_set(err, "dist_send: this cutune was built without MPI (-DCUTUNE_MPI=ON)");
}
int dist_recv(dist *d, int *from, int *tag, dbuf *payload, int timeout_ms, cterr *err) {
  return cterr_set(err, "dist_recv: this cutune was built without MPI (-DCUTUNE_MPI=ON)");
}
void dist_close(dist *d, int abandon) { free(d); }
#else
typedef int dist_none_unused; /* ISO C: a translation unit is not empty */
#endif
