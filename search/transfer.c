/* transfer: see transfer.h. Shapes are kept in an array indexed by id (grown as ids arrive);
 * each keeps its TRANSFER_KEEP best configurations sorted by value, one per family. */
#include "transfer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

typedef struct tx_entry {
  size_t cfg;
  uint64_t fam;
  double val;
} tx_entry;

typedef struct tx_shape {
  int known; /* sizes set */
  int64_t dims[16];
  int n; /* kept entries, best first */
  tx_entry e[TRANSFER_KEEP];
} tx_shape;

struct transfer {
  int nd;
  tx_shape *sh;
  int nsh;
};

transfer *transfer_new(int ndims) {
  transfer *t = xcalloc(1, sizeof *t);
  t->nd = ndims < 1 ? 1 : ndims > 16 ? 16 : ndims;
  return t;
}

void transfer_free(transfer *t) {
  if (!t) return;
  free(t->sh), free(t);
}

static tx_shape *shape_at(transfer *t, int id) {
  if (id >= t->nsh) {
    int n = t->nsh ? t->nsh : 16;
    while (n <= id) n *= 2;
    t->sh = xrealloc(t->sh, (size_t)n * sizeof *t->sh);
    memset(t->sh + t->nsh, 0, (size_t)(n - t->nsh) * sizeof *t->sh);
    t->nsh = n;
  }
  return &t->sh[id];
}

void transfer_shape(transfer *t, int id, const int64_t *dims) {
  if (id < 0) return;
  tx_shape *s = shape_at(t, id);
  memcpy(s->dims, dims, (size_t)t->nd * sizeof *dims);
  s->known = 1;
}

void transfer_note(transfer *t, int id, size_t cfg, uint64_t fam, double value) {
  if (id < 0 || !isfinite(value)) return;
  tx_shape *s = shape_at(t, id);
  int at = -1;
  for (int i = 0; i < s->n && at < 0; i++)
    if (s->e[i].fam == fam) at = i;
  if (at >= 0) { /* the family is kept: its better configuration stays */
    if (value >= s->e[at].val) return;
    memmove(s->e + at, s->e + at + 1, (size_t)(s->n - at - 1) * sizeof *s->e);
    s->n--;
  }
  int pos = s->n;
  while (pos > 0 && (s->e[pos - 1].val > value || (s->e[pos - 1].val == value && s->e[pos - 1].cfg > cfg))) pos--;
  if (pos >= TRANSFER_KEEP) return;
  int n = s->n < TRANSFER_KEEP ? s->n : TRANSFER_KEEP - 1;
  memmove(s->e + pos + 1, s->e + pos, (size_t)(n - pos) * sizeof *s->e);
  s->e[pos] = (tx_entry){cfg, fam, value};
  s->n = n + 1;
}

int transfer_tuned(const transfer *t) {
  int k = 0;
  for (int i = 0; i < t->nsh; i++) k += t->sh[i].n > 0;
  return k;
}

double transfer_best(const transfer *t, int id, long *cfg) {
  if (id < 0 || id >= t->nsh || t->sh[id].n == 0) {
    if (cfg) *cfg = -1;
    return INFINITY;
  }
  if (cfg) *cfg = (long)t->sh[id].e[0].cfg;
  return t->sh[id].e[0].val;
}

int transfer_top(const transfer *t, int id, size_t *cfg, double *val, int max) {
  if (id < 0 || id >= t->nsh) return 0;
  const tx_shape *s = &t->sh[id];
  int k = 0;
  for (; k < s->n && k < max; k++) {
    if (cfg) cfg[k] = s->e[k].cfg;
    if (val) val[k] = s->e[k].val;
  }
  return k;
}

double transfer_distance(const int64_t *a, const int64_t *b, int n) {
  double d = 0;
  for (int k = 0; k < n; k++) {
    double x = a[k] > 0 ? (double)a[k] : 1, y = b[k] > 0 ? (double)b[k] : 1;
    d += fabs(log(x / y));
  }
  return d;
}

int transfer_keep_nearest(int *id, double *dist, int n, int k, int cand, double d) {
  int pos = n;
  while (pos > 0 && dist[pos - 1] > d) pos--;
  if (pos >= k) return n;
  int keep = n < k ? n : k - 1;
  memmove(id + pos + 1, id + pos, (size_t)(keep - pos) * sizeof *id);
  memmove(dist + pos + 1, dist + pos, (size_t)(keep - pos) * sizeof *dist);
  id[pos] = cand, dist[pos] = d;
  return keep + 1;
}

int transfer_improves(double value, double mark) {
  if (!isfinite(value)) return 0;
  return !isfinite(mark) || value < mark * (1 - TRANSFER_IMPROVE);
}

int transfer_seeds(const transfer *t, int self, const int64_t *dims, int near, int per, size_t *out, int max, int *from,
                   int *nfrom) {
  if (nfrom) *nfrom = 0;
  if (near < 1 || per < 1 || max < 1) return 0;
  if (near > 64) near = 64;
  int pick[64], np = 0;
  double pd[64];
  for (int i = 0; i < t->nsh; i++) { /* the `near` nearest tuned shapes, ties to the lower id */
    const tx_shape *s = &t->sh[i];
    if (i == self || !s->known || s->n == 0) continue;
    np = transfer_keep_nearest(pick, pd, np, near, i, transfer_distance(dims, s->dims, t->nd));
  }
  int k = 0;
  for (int r = 0; r < per && r < TRANSFER_KEEP && k < max; r++)
    for (int j = 0; j < np && k < max; j++) {
      const tx_shape *s = &t->sh[pick[j]];
      if (r >= s->n) continue;
      size_t c = s->e[r].cfg;
      int dup = 0;
      for (int q = 0; q < k && !dup; q++) dup = out[q] == c;
      if (!dup) out[k++] = c;
    }
  if (from)
    for (int j = 0; j < np; j++) from[j] = pick[j];
  if (nfrom) *nfrom = np;
  return k;
}

int transfer_order(const int64_t *dims, int n, int ndims, const unsigned char *tuned, int *out) {
  double *dmin = xmalloc((size_t)(n ? n : 1) * sizeof *dmin);
  unsigned char *done = xcalloc((size_t)(n ? n : 1), 1);
  int any = 0, k = 0;
  for (int i = 0; i < n; i++) dmin[i] = INFINITY;
  for (int i = 0; i < n; i++) { /* the shapes tuned before are the start */
    if (!tuned || !tuned[i]) continue;
    done[i] = 1, any = 1;
    for (int j = 0; j < n; j++) {
      double d = transfer_distance(dims + (size_t)i * ndims, dims + (size_t)j * ndims, ndims);
      if (d < dmin[j]) dmin[j] = d;
    }
  }
  for (;;) {
    int pick = -1;
    for (int j = 0; j < n; j++)
      if (!done[j] && (pick < 0 || (any && dmin[j] < dmin[pick]))) pick = j;
    if (pick < 0) break;
    done[pick] = 1, any = 1, out[k++] = pick;
    for (int j = 0; j < n; j++) {
      double d = transfer_distance(dims + (size_t)pick * ndims, dims + (size_t)j * ndims, ndims);
      if (d < dmin[j]) dmin[j] = d;
    }
  }
  free(dmin), free(done);
  return k;
}
