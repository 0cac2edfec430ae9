/* select: a small set of kernels for many shapes, and the rule for shapes never tuned
 * (`cutune header`, docs/HEADER.md). Plain numbers in, indices out; header_select.c feeds it
 * each level of the header (a GPU, an architecture, the portable default).
 *
 * Input: np shapes (their sizes, nv each), nc candidate kernels, and the ratio R[p][c] >= 1 of
 * kernel c's time on shape p to the best there (INFINITY: c was not measured on p; for a
 * choice over several GPUs the worst, or mean, of the GPUs' ratios). Kernel c covers shape p
 * when R[p][c] <= Rmin[p] * (1 + tol), Rmin[p] the least ratio any kernel reaches there (1 on
 * one GPU).
 *
 * The set: greedy set cover (the kernel covering most uncovered shapes; ties to the lower sum
 * of log ratios on them, then the lower index), at most maxk kernels; then local improvement:
 * kernels whose shapes the others cover are dropped, a smaller set covering as many shapes is
 * searched exhaustively where the distinct useful kernels are few (SELECT_EXACT_MAX; sizes in
 * increasing order, at most 300,000 subsets in all, so the leave-one-out's many runs stay in
 * seconds), and
 * single swaps that keep the coverage and lower the sum over the shapes of the log ratio of
 * their fastest kernel in the set are made until none is left. Each shape is assigned the
 * fastest kernel of the set there (ties to the lower index); a kernel assigned nowhere leaves.
 *
 * The rule, for sizes q: the k tuned shapes nearest to q (distance: the product over the sizes
 * of max(a, b) / min(a, b), i.e. the exponential of the L1 distance of the logs; ties to the
 * lower index), and the kernel of the set with the least sum of ratios over them (a ratio not
 * measured counts SELECT_PENALTY; ties to the lower index). With k = 1, or where q is a tuned
 * shape (distance 1), that is the nearest shape's own kernel. k is chosen by leave-one-out over the tuned shapes: each shape in turn is
 * left out, the set chosen again without it and the rule applied to its sizes; the k with the
 * least mean log ratio (a kernel not measured on the shape counts log SELECT_PENALTY) wins,
 * ties to the smaller k. Ratios are rounded to 1e-4 first (select_round), the precision the
 * header prints them with, so the generated C (which sums the printed numbers in the same
 * order) chooses exactly what this code chose.
 *
 * The fill term (optional, where the caller has a model of each kernel's grid): fill(c, q) in
 * (0, 1] is the share of the GPU's block slots kernel c keeps busy over its waves at sizes q,
 * blocks / (waves x slots) with slots = SMs x blocks per SM and waves = ceil(blocks / slots);
 * 0 where the kernel has no model. With it, kernel c's ratio at a neighbour p counts
 * R[p][c] x fill(c, p) / fill(c, q) (a kernel that filled the GPU at p and fills a third of it at
 * q is expected three times slower there; a factor 1 where either fill is 0), and the vote is
 * taken even over one neighbour. Leave-one-out chooses it with k: the pair (fill off or on, k)
 * with the least mean log ratio, ties to off and the smaller k. */
#ifndef CUTUNE_SELECT_H
#define CUTUNE_SELECT_H

#define SELECT_PENALTY 2.0  /* a ratio the rule does not know */
#define SELECT_EXACT_MAX 40 /* distinct useful kernels at most for the exhaustive smaller-set search */
#define SELECT_LOO_MAX 256  /* shapes at most for leave-one-out with the set chosen again each time */
#define SELECT_K_MAX 4      /* the rule's k is chosen among 1 .. this */
#define SELECT_LOO_TIE 0.005 /* leave-one-out means this close to the best are a tie: the simpler rule */

typedef struct sel_input {
  int np, nc, nv;
  const double *R;       /* np x nc, row-major */
  const long long *dims; /* np x nv */
  double tol;            /* cover tolerance: 0.03 */
  int maxk;              /* kernels at most: 16 */
  int knn;               /* the rule's k; 0: chosen by leave-one-out */
  /* the fill term: NULL none; use_fill -1 chosen by leave-one-out, 0 off, 1 on */
  double (*fill)(void *ctx, int c, const long long *q);
  void *fill_ctx;
  int use_fill;
} sel_input;

typedef struct sel_result {
  int *set, nset;         /* the kernels, ascending */
  int *assign;            /* per shape: its kernel (-1: no kernel measured there) */
  int covered, coverable; /* shapes within tol of their best; shapes with any measured kernel */
  double worst;           /* the largest ratio of an assigned kernel to the shape's best (Rmin) */
  int knn;                /* the rule's k */
  int fill;               /* the rule uses the fill term */
  int loo_full;           /* leave-one-out chose the set again without each shape */
  int loo_n, loo_judged;  /* shapes left out; of those, where the rule's kernel was measured */
  double loo_geo;         /* geometric mean of Rmin / R of the rule's kernel over the judged */
  double loo_worst;       /* the least of them */
  int loo_within;         /* judged shapes within tol */
} sel_result;

/* 0, or -1 when there is nothing to choose from (no shape with a measured kernel). */
int select_kernels(const sel_input *in, sel_result *out);
void select_free(sel_result *r);
/* The rule for sizes q over the shapes of in (shape `skip` left out; -1 none): the chosen kernel
 * (an index into nc) and, in *near (may be NULL), the nearest shape it was matched to (the
 * nearest of the k whose assigned kernel it is, else the nearest shape assigned it). */
int select_rule(const sel_input *in, const sel_result *r, const long long *q, int skip, int *near);
/* The distance the rule and the header use: product over n sizes of max/min (sizes <= 0 as 1). */
double select_distance(const long long *a, const long long *b, int n);
/* A ratio as the header prints it: rounded to 1e-4. */
double select_round(double ratio);

#endif
