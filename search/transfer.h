/* transfer: what a new shape's search starts from — the best configurations of the shapes
 * already tuned that are nearest to it — and the rule that ends a seeded search once it stalls.
 *
 * A transfer holds, per tuned shape (an id: the problem's index), its sizes and its best few
 * configurations (configset indices) by value, at most one per family (a family is what a
 * caller counts as one kernel: configurations that differ only in runtime parameters share a
 * compile, and the runtime sweep measures the others anyway). Distance between shapes: the sum
 * over the sizes of |ln(a / b)|, the header's and the replay's distance too. transfer_seeds gives
 * the configurations of the `near` nearest tuned shapes rank by rank (each one's best, then each
 * one's second ...), each configuration once: the seeds a strategy proposes first
 * (strategy_seed), measured before it chooses anything of its own.
 *
 * A seeded search ends (besides its budget) once `patience` evaluations in a row have not
 * improved its best by TRANSFER_IMPROVE (0.5 %): transfer_stalled. Both the tuning loop
 * (tuner/engine/tune.c) and the replay driver (search/driver.c) apply it, so the cost a replay
 * shows is the cost a run pays.
 *
 * Ownership: the transfer owns everything; transfer_free(NULL) does nothing. */
#ifndef CUTUNE_TRANSFER_H
#define CUTUNE_TRANSFER_H

#include <stddef.h>
#include <stdint.h>

#define TRANSFER_KEEP 8        /* configurations kept per tuned shape */
#define TRANSFER_IMPROVE 0.005 /* an improvement of the best counts from 0.5 % */
#define TRANSFER_HYBRID_MIN 0  /* hybrid: exploitation arms may join this many results after the seeds */

typedef struct transfer transfer;

/* ndims: sizes per shape (at most 16). */
transfer *transfer_new(int ndims);
void transfer_free(transfer *t);

/* Shape id's sizes (all > 0; set once, before or with its first note). */
void transfer_shape(transfer *t, int id, const int64_t *dims);
/* A measured value (lower is better; not finite: failed, ignored) of configuration cfg of
 * family fam on shape id. */
void transfer_note(transfer *t, int id, size_t cfg, uint64_t fam, double value);
/* How many shapes have a finite value noted. */
int transfer_tuned(const transfer *t);
/* The best value noted for shape id (INFINITY if none) and its configuration (-1 if none). */
double transfer_best(const transfer *t, int id, long *cfg);
/* Shape id's kept configurations, best first (at most max); returns how many. */
int transfer_top(const transfer *t, int id, size_t *cfg, double *val, int max);

/* Seeds for a shape with sizes dims (shape `self` excluded; -1 none): the kept configurations of
 * the `near` nearest tuned shapes, `per` of each at most, rank by rank, each once; at most max
 * into out. from (may be NULL) gets the ids of the shapes used, nearest first (at most `near`),
 * *nfrom their count. Returns how many seeds. */
int transfer_seeds(const transfer *t, int self, const int64_t *dims, int near, int per, size_t *out, int max, int *from,
                   int *nfrom);
/* The k nearest so far, id[0..n) by distance ascending (ties: the earlier first): candidate
 * cand at distance d goes in where it belongs, the farthest drops out past k; the new n. */
int transfer_keep_nearest(int *id, double *dist, int n, int k, int cand, double d);
/* The distance of two shapes: sum over the sizes of |ln(a / b)|. */
double transfer_distance(const int64_t *a, const int64_t *b, int n);

/* The order to tune n shapes in (dims: n rows of ndims sizes): the first shape first (unless some
 * are tuned already), then repeatedly the one nearest to any shape placed or tuned before it
 * (ties: the lower index), so that each search has a near neighbour to start from. tuned (may
 * be NULL): shapes tuned before, which count as placed but are not listed. out: the n - (tuned)
 * others in order; returns how many. */
int transfer_order(const int64_t *dims, int n, int ndims, const unsigned char *tuned, int *out);

/* The stall rule: a seeded search that has made `evals` evaluations, the last counted
 * improvement (TRANSFER_IMPROVE) at evaluation `improved_at`, is done after `patience` more;
 * patience <= 0: never. */
static inline int transfer_stalled(long evals, long improved_at, long patience) {
  return patience > 0 && evals - improved_at >= patience;
}
/* Whether value improves on mark by TRANSFER_IMPROVE (mark not finite: any finite value does). */
int transfer_improves(double value, double mark);

#endif
