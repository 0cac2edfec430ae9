/* shapes: what `cutune run` adds for a shape set (a run over several problems of a space):
 *
 *   - the book: per model group, every selected problem's best configurations, from the store
 *     when the run starts (records of this template and options) and from each record the run
 *     appends; the seeds of a new shape's search are the best of the nearest shapes in it
 *     (search/transfer.h);
 *   - the tuning order: the first selected problem first, then repeatedly the one nearest to a
 *     shape placed before it (so each search has a near neighbour to start from);
 *   - the cross-measurement's candidates: the best few kernels of every tuned shape, which the
 *     run then measures on every shape (records like any other), so that `cutune header` can
 *     choose a small set of kernels that covers them all (docs/HEADER.md);
 *   - the summary: per shape what it cost (configurations measured, answered from the store, GPU
 *     and wall seconds, its best, how many seeds it got and from which shapes, whether its best
 *     was a seed), with the cross phase, so the falling cost of transfer shows.
 *
 * Ownership: a book owns its copies; shapes_book_free(NULL) does nothing. */
#ifndef CUTUNE_SHAPES_H
#define CUTUNE_SHAPES_H

#include <stdio.h>

#include "job.h"
#include "search/transfer.h"
#include "space/space.h"
#include "store/store.h"

typedef struct shape_book shape_book;

/* A book over space s for one group: ohash (the group's options hash of every configuration)
 * and template_hash select the store's records that count; they are read now. */
shape_book *shapes_book_new(const space *s, const store *st, const char *template_hash, job_ohashes *ohash);
void shapes_book_free(shape_book *b);
/* A record of configuration cfg on problem prob (a successful one counts). */
void shapes_book_note(shape_book *b, int prob, size_t cfg, const record *r);
/* Whether problem prob has a successful record in the book. */
int shapes_book_tuned(const shape_book *b, int prob);
/* Seeds for problem prob: the best `per` kernels of the `near` nearest other shapes with
 * records (transfer_seeds); from/nfrom: those shapes, nearest first (from has room for near). */
int shapes_book_seeds(const shape_book *b, int prob, int near, int per, size_t *out, int max, int *from, int *nfrom);
/* The union of the best `top` kernels of each problem in probs[0..n), each once, at most max:
 * those in the most shapes' lists first (then by their best rank); returns how many. */
int shapes_cross_candidates(const shape_book *b, const int *probs, int n, int top, size_t *out, int max);

/* The selected problems (sel: space_select_match) in tuning order into out; returns how many.
 * nearest: the nearest-first order, else as listed. */
int shapes_order(const space *s, const char *sel, int nearest, int *out);

/* What one shape cost and gave. */
typedef struct shape_cost {
  int prob;
  long measured, answered; /* configurations measured; answered from the store (not charged) */
  double gpu_s, wall_s;    /* the GPU worker's seconds on its records; the problem's wall time */
  double best_ms;          /* INFINITY: nothing ran */
  double figure;           /* TFLOP/s (flops) or GB/s of the best; NAN */
  int flops;               /* figure is TFLOP/s */
  int seeds, nfrom, from[3];
  int best_seeded; /* the best is one of the seeds (or a runtime sibling of one) */
  int stalled;     /* the seeded search ended by its patience */
} shape_cost;

/* The per-shape table and totals (cross: the cross phase's row, ncandidates kernels on nshapes
 * shapes; NULL without one). */
void shapes_summary(FILE *f, const space *s, const char *label, const shape_cost *rows, int n, const shape_cost *cross,
                    int ncandidates, int nshapes);

#endif
