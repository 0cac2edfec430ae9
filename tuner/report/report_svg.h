/* report_svg: the inline SVG figures of report_html — box plots by category, step curves and
 * a scatter with its Pareto front. Plain text out; no state. Values that are not finite are
 * left out. Times on logarithmic axes (decades of tick marks 1-2-5). */
#ifndef CUTUNE_REPORT_SVG_H
#define CUTUNE_REPORT_SVG_H

#include <stddef.h>

#include "base/util.h"

/* Append s with &, <, >, " escaped. */
void html_esc(dbuf *b, const char *s);

/* One box (min, quartiles, median, max; the best as a dot) per category, over a log y axis.
 * vals[c] holds nvals[c] values of category c. */
void svg_boxes(dbuf *b, const char *id, const char *ylabel, const char *const *cats, int ncats, double *const *vals,
               const size_t *nvals);

/* The best-so-far step curve of (x, y) in order; y spanning the curve from a twentieth of the
 * way in (at least the tenth point) to its end (logarithmic where that spans more than 3x),
 * what starts above drawn at the top edge and said. */
void svg_steps(dbuf *b, const char *id, const char *xlabel, const char *ylabel, const double *x, const double *y,
               size_t n);

/* Points (x, y) and the staircase through the non-dominated ones (both smaller is better). */
void svg_front(dbuf *b, const char *id, const char *xlabel, const char *ylabel, const double *x, const double *y,
               size_t n);

#endif
