/* report: tables over measurement records, for people (aligned plain text) and for tools
 * (CSV, JSON) — the end-of-run summary, the compile-only resource table, exports.
 *
 * Every function takes the records as an array of pointers (e.g. from store_get) and never
 * keeps or changes them. Where a (config, problem) appears several times (re-measured
 * after a template change) the tables use the LAST one in the array: pass records in the
 * order they were recorded. `problem` NULL means every record, whatever its problem.
 * Parameter columns follow the order in which parameter names first appear in the records
 * (the space's order). Times are shown in µs. */
#ifndef CUTUNE_REPORT_H
#define CUTUNE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "base/util.h"
#include "store/record.h"

/* The `top` fastest configurations among status ok (by median time): rank, parameters,
 * time (µs), GB/s, % of copy bandwidth (copy_gbps > 0: gbps / copy_gbps; otherwise the
 * record's own copy_share), occupancy and limiter, registers, samples; then one line of
 * failures by status. Returns the number of ranked rows printed. */
int report_best(FILE *out, const record *const *recs, size_t n, const char *problem, int top, double copy_gbps);

/* "Which parameters made the difference": per parameter, the best time among ok records for
 * each of its values and the ratio worst/best of those per-value bests; parameters sorted by
 * that ratio, largest first, e.g.
 *   PAD   0: 212.1 µs  1: 134.2 µs  2: 135.0 µs   (×1.58)
 * Returns the number of parameters printed. */
int report_param_effects(FILE *out, const record *const *recs, size_t n, const char *problem);

/* For compile-only runs: parameters, registers, static and dynamic shared memory, spills
 * (stores/loads), local bytes, block threads, theoretical occupancy and its limiter, and the
 * compile status (ok, or the status and the first line of its message). Records in the
 * order given. */
void report_resources(FILE *out, const record *const *recs, size_t n);
/* The summary of a compile-only run, in place of its table: how many configurations compiled
 * and failed (by status), the range of each resource over those that compiled (registers,
 * shared and local memory, threads per block, spills, theoretical occupancy), and per occupancy
 * limiter how many it caps, then a resource table of the per_limiter configurations of each
 * limiter with the highest theoretical occupancy (fewest registers first among equals). */
void report_compile_summary(FILE *out, const record *const *recs, size_t n, int per_limiter);
/* Where a compile-only run's NVRTC time went, over the n records compiled in it (their
 * compile_ms; a batch's shared cost split evenly among its members): total, median, mean, the
 * heaviest configuration and the heaviest tenth's share, and the mean per value of the
 * parameters whose values differ most in it (at most max_params of them). Nothing under 10. */
void report_compile_times(FILE *out, const record *const *recs, size_t n, int max_params);

/* Records of other checks (provenance.check_hash, docs/RECORDS.md). report_other_checks: the
 * sentence for n records of a space's store that a table leaves out because they were measured
 * under another check of their problem than the space's now (store_same_check), with `show`
 * the option that shows them, or NULL; nothing for n == 0. report_check_mix: the check hashes
 * the records of `problem` carry, when there are two or more: "2 checks (1a2b3c4d: 3 records,
 * 5e6f7a8b: 3 records)" (and how many carry none); returns how many there are (below 2: nothing
 * written). */
void report_other_checks(dbuf *out, size_t n, const char *show);
int report_check_mix(dbuf *out, const record *const *recs, size_t n, const char *problem);

/* The line that ends a run in which n configurations failed in the space's own functions
 * (space_error: a geometry, argument or tensor map function raised or answered with the wrong
 * type), quoting the first one's message; with stopped_after > 0, also that the run stopped
 * early because its first stopped_after records all failed so. Nothing for n == 0. */
void report_space_errors(FILE *out, size_t n, const char *first, int stopped_after);

/* Every record, flat, one row each, RFC 4180 quoting; unmeasured figures are empty cells.
 * Columns: space, config, problem, one per parameter, status, message, the statistics,
 * derived figures, resources, compile time and provenance (names as in the JSON form). */
void report_csv(FILE *out, const record *const *recs, size_t n);
/* A JSON array of the records in the store's own JSON form (pandas: read_json + json_normalize). */
void report_json(FILE *out, const record *const *recs, size_t n);

#endif
