/* report_html: a results store as one self-contained HTML page — inline CSS and SVG, one small
 * inline script, no network. Per problem: the best configurations (with sanitizer verdicts),
 * the time against each parameter's values as distributions (box plots over every measured
 * configuration), the time/energy front when energy was measured, the search's best-so-far
 * curve against evaluations and against seconds, the resources of the top configurations,
 * the `cutune explain` counters and readings when the sidecar has them; then provenance (GPU,
 * driver, NVRTC, architecture, dates, template hashes).
 *
 * The records are taken as given (store order = evaluation order); the explain set may be
 * NULL. Element ids the browser test checks: #best-<p>, #params-<p>, #front-<p>,
 * #curve-<p>, #resources-<p>, #explain-<p>, #checks-<p> (p: problem index), #checks, #provenance; the inline script
 * sets <body data-ready="1"> once it has run (table sorting by clicking a header). */
#ifndef CUTUNE_REPORT_HTML_H
#define CUTUNE_REPORT_HTML_H

#include <stddef.h>

#include "base/util.h"
#include "explain/explain_store.h"
#include "store/record.h"

typedef struct report_html_opts {
  const char *title;   /* e.g. "transpose on NVIDIA H200" */
  const char *source;  /* the store's path, shown in provenance */
  const char *problem; /* only this problem key (NULL: every problem, in order of appearance) */
  int top;             /* rows of the best table (default 15) */
  const char *note;    /* a paragraph under the title (#checks; NULL: none), e.g. records left out */
  const char *mix_hint; /* after a problem's note that its records are of several checks (#checks-<p>):
                           what would rank only one (NULL: nothing) */
} report_html_opts;

/* Returns how many of the problems shown have records of two or more check hashes
 * (report_check_mix): ranked together, the newest record of each configuration whatever its
 * check, which each such problem's section says. */
int report_html(dbuf *out, const record *const *recs, size_t n, const explain_set *ex, const report_html_opts *o);

#endif
