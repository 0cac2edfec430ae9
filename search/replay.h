/* replay: a measurement backend that answers from a recorded file instead of a GPU, so search
 * strategies run on real data anywhere.
 *
 * Formats: Kernel Tuner cache files (JSON, gzip-compressed or not: detected by magic bytes)
 * and cutune's own results files (JSONL, read through the store when it is built in). From a
 * file alone the space is the file's: parameters in the file's order with the file's values
 * (numeric where they are numbers), valid configurations = every recorded configuration,
 * failed ones included (Kernel Tuner "CompilationFailedConfig" -> compile_error,
 * "RuntimeFailedConfig" -> runtime_fault, "InvalidConfig" -> invalid). With a space's
 * configset, values are looked up by parameter names and values; configurations the file
 * lacks count as failed (invalid, "not in the recorded file"). A time that is not a positive
 * number counts as failed (runtime_fault), with a warning (replay_warnings).
 *
 * Duplicate keys: cutune records with a duplicate key are malformed lines (both record readers
 * reject them, see store/record.h); in a Kernel Tuner file the last value wins, as in Python's
 * json module that writes them.
 *
 * Ownership: the replay owns everything it loaded; with replay_load_for it borrows the given
 * configset, which must outlive it. */
#ifndef CUTUNE_REPLAY_H
#define CUTUNE_REPLAY_H

#include <stddef.h>

#include "space/configset.h"
#include "store/record.h"
#include "base/util.h"

typedef struct replay replay;

/* problem: which problem of a cutune results file ("N=8192,M=8192"); NULL = the first one.
 * Ignored for Kernel Tuner files (one problem per file). */
int replay_load(const char *path, const char *problem, replay **out, cterr *err);
int replay_load_for(const char *path, const char *problem, const configset *space_cs, replay **out, cterr *err);
void replay_free(replay *r);

const configset *replay_configs(const replay *r);
size_t replay_count(const replay *r);
const char *replay_title(const replay *r);   /* "device / kernel" or the file name */
const char *replay_problem(const replay *r); /* the problem replayed ("" if none given) */
/* Kernel Tuner files only (NULL otherwise or where the file lacks them): device_name,
 * kernel_name, problem_size as "4096,4096", the date (YYYY-MM-DD) of the earliest entry. */
const char *replay_device(const replay *r);
const char *replay_kernel(const replay *r);
const char *replay_sizes(const replay *r);
const char *replay_date(const replay *r);
size_t replay_nfailed(const replay *r);
double replay_value(const replay *r, size_t i); /* mean time (ms); INFINITY if failed */
rec_status replay_status(const replay *r, size_t i);
int replay_nreps(const replay *r, size_t i); /* recorded repetitions (0 if none) */
const double *replay_reps(const replay *r, size_t i);
double replay_compile_ms(const replay *r, size_t i);   /* NAN if unknown */
double replay_cost_seconds(const replay *r, size_t i); /* simulated cost: compile + benchmark */
long replay_optimum(const replay *r);                  /* index of the best value; -1 if none ok */
/* What loading skipped or counted as failed, one "file:line: ..." (or "file: ...") line each:
 * lines of a results file that are not records, times that are not positive (counted as
 * failed: runtime_fault). "" when there is nothing to say; the caller prints it. */
const char *replay_warnings(const replay *r);

/* The search_eval_fn of driver.h: ctx is a replay_eval. Noisy: each evaluation draws one of
 * the recorded repetitions (the mean where none were recorded). */
typedef struct replay_eval {
  const replay *r;
  int noisy;
  rng rng;
} replay_eval;
int replay_evaluate(void *ctx, size_t idx, double *value, double *cost_seconds, rec_status *status, cterr *err);

/* Read a whole file, gunzipping it when it starts with the gzip magic bytes. */
int replay_read_file(const char *path, dbuf *out, cterr *err);

#endif
