/* explain_store: what `cutune explain` found, kept beside the results store so that
 * `cutune report` and `cutune header` read it without profiling again.
 *
 *   results/<device>/<space>.jsonl          the store (tuner/store)
 *   results/<device>/<space>.explain.jsonl  this sidecar: one JSON object per line, appended
 *
 * A line is either {"kind":"ncu", config, problem, time, kernel, metrics{key: value},
 * stalls{reason: cycles per issue}, reading, cutune_median_ms, cutune_isolated_ms} or
 * {"kind":"sanitize", config, problem, time, tool, verdict: "clean"|"flagged"|"error", errors,
 * finding}; both may carry template_hash, the store's hash of the template the configuration
 * was built from (lines written before it existed have none). The newest line for a (config,
 * problem[, tool]) counts. Lines that do not parse are skipped (and counted), never deleted.
 *
 * The shipping rule (for `cutune header`): a configuration with any sanitizer verdict
 * "flagged" — on any problem, by any tool, as of its newest line for that tool — is never
 * shipped. Only the verdicts of the record's own template count: a line with another
 * template_hash is about other code (a line without one counts for every version).
 * explain_verdict_ok answers it from a store path in one call.
 *
 * Ownership: an explain_set owns its entries; pointers from it live until explain_free. */
#ifndef CUTUNE_EXPLAIN_STORE_H
#define CUTUNE_EXPLAIN_STORE_H

#include <stddef.h>

#include "base/util.h"
#include "explain/ncu.h"
#include "explain/sanitize.h"

typedef enum { EXPLAIN_NCU = 0, EXPLAIN_SANITIZE } explain_kind;

typedef struct explain_entry {
  explain_kind kind;
  char *config, *problem, *time;
  char *template_hash; /* of the template it was built from; NULL: not recorded (older lines) */
  /* ncu */
  ncu_metrics m;
  char *reading;
  double cutune_median_ms, cutune_isolated_ms; /* the store's figures when profiled (NAN: none) */
  /* sanitize */
  san_verdict v;
} explain_entry;

typedef struct explain_set explain_set;

/* "<dir>/<space>.explain.jsonl" for "<dir>/<space>.jsonl" (caller frees). */
char *explain_sidecar_path(const char *store_path);

/* Load the sidecar of a store; a missing sidecar is an empty set (0). skipped (may be NULL)
 * gets the number of lines that did not parse. */
int explain_load(const char *store_path, explain_set **out, size_t *skipped, cterr *err);
void explain_free(explain_set *s);
size_t explain_count(const explain_set *s);
const explain_entry *explain_get(const explain_set *s, size_t i);
/* The newest ncu entry for (config, problem); NULL if none. */
const explain_entry *explain_find_ncu(const explain_set *s, const char *config, const char *problem);
/* The newest sanitize entry for (config, problem, tool); NULL if none. */
const explain_entry *explain_find_san(const explain_set *s, const char *config, const char *problem, san_tool t);

/* Append one entry (one write of one line, then fsync). Strings may be NULL. */
int explain_append(const char *store_path, const explain_entry *e, cterr *err);
void explain_entry_to_json(const explain_entry *e, dbuf *out); /* one line, no newline */

/* The shipping verdict of a configuration. */
typedef enum {
  EXPLAIN_UNCHECKED = 0, /* never sanitized (or only with tool errors) */
  EXPLAIN_CLEAN,         /* sanitized, nothing flagged */
  EXPLAIN_FLAGGED        /* a tool found a race, an out-of-bounds access or uninitialised reads */
} explain_verdict_kind;
/* problem NULL: any problem; template_hash NULL: lines of any template version, else only lines
 * of that version and lines that name none. why (may be NULL) receives the finding of a flagged
 * verdict: "racecheck on M=8192,N=8192: Warning: Race reported between ...". */
explain_verdict_kind explain_verdict(const explain_set *s, const char *config, const char *problem,
                                     const char *template_hash, char *why, size_t whylen);
/* For `cutune header`: 1 when the configuration may be shipped (clean or never sanitized), 0
 * when flagged or when the sidecar exists but cannot be read (why says which). */
int explain_verdict_ok(const char *store_path, const char *config, const char *problem, const char *template_hash,
                       char *why, size_t whylen);

#endif
