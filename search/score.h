/* score: the strategy scoreboard of `cutune score` (Willemsen et al., "A methodology for
 * comparing optimization algorithms for auto-tuning", FGCS 2024), and the replay command.
 *
 * Per space and budget b, a strategy's mean best-so-far f(b) over seeded repeats is scored
 * (E_b - f(b)) / (E_b - f_opt): 0 = what random search without replacement finds on average
 * with b evaluations, 1 = the optimum. Scores are averaged over spaces.
 *
 * Best-so-far before any configuration succeeded counts as the worst valid value, for the
 * strategies and for the baseline alike. */
#ifndef CUTUNE_SCORE_H
#define CUTUNE_SCORE_H

#include <stddef.h>

/* Exact expected best-so-far of uniform random sampling without replacement after k draws
 * from a space of n configurations, of which the m that succeeded have the values sorted[0..m)
 * in ascending order (the n - m failures yield nothing). Draw k must be 1..n. With P_i the
 * probability that the i-th smallest value is the best among the draws,
 *   P_i = C(n-1-i, k-1) / C(n, k)   (0-based i: it is drawn, the rest come from the n-1-i after it)
 *   E   = sum_i sorted[i] P_i + sorted[m-1] * C(n-m, k) / C(n, k)   (no success: the worst value). */
double score_random_expected(const double *sorted, size_t m, size_t n, long k);

/* `cutune score FILE...` (argv[0] = "score"). Prints the scoreboard; returns an exit status. */
int search_score_main(int argc, char **argv);

/* `cutune run --replay FILE [SPACE.lua] ...` (argv[0] = "run", the rest as given to run).
 * Runs one strategy on recorded measurements; prints the best configurations, evaluations
 * spent and the best-so-far curve. Returns an exit status. */
int search_replay_main(int argc, char **argv);

#endif
