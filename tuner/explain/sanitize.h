/* sanitize: compute-sanitizer as cutune uses it — the command line for one tool on one
 * configuration's worker process, and the verdict read back from the tool's output.
 *
 * Tools: memcheck (out-of-bounds and misaligned accesses, errors of the CUDA API), racecheck
 * (shared-memory data races; only where the kernel uses shared memory) and initcheck (reads
 * of device memory never written). A verdict is clean (the tool's summary says 0 errors /
 * 0 hazards), flagged (it names at least one) or error (the tool did not produce a summary:
 * not found, killed, timed out). Pure text functions: tested on recorded H200 output
 * (tests/fixtures/sanitizer/). Only tuner/explain runs compute-sanitizer. */
#ifndef CUTUNE_SANITIZE_H
#define CUTUNE_SANITIZE_H

#include <stddef.h>

typedef enum { SAN_MEMCHECK = 0, SAN_RACECHECK, SAN_INITCHECK, SAN_NTOOLS } san_tool;
typedef enum { SAN_CLEAN = 0, SAN_FLAGGED, SAN_ERROR } san_status;

const char *san_tool_name(san_tool t);     /* "memcheck" */
int san_tool_parse(const char *s);         /* index or -1 */
const char *san_status_name(san_status s); /* "clean" | "flagged" | "error" */
int san_status_parse(const char *s);       /* index or -1 */

typedef struct san_verdict {
  san_tool tool;
  san_status status;
  long errors;       /* errors (memcheck, initcheck) or hazards (racecheck, errors + warnings) */
  char finding[512]; /* the first report, e.g. "Invalid __global__ write of size 4 bytes at
                         planted_oob+0x100 in faulty.cu:14 (out of bounds, 1 bytes after ...)" */
} san_verdict;

/* The options that go before the program: --tool T --error-exitcode 99 --target-processes all
 * --print-limit 20 (racecheck: --racecheck-report hazard). Fills argv from index 0 (the caller
 * puts the tool path first); returns how many were written. Strings are static. */
#define SAN_EXIT_FLAGGED 99
int san_options(san_tool t, const char **argv, int max);

/* Read the verdict from the tool's combined stdout+stderr and its exit status (-1 if it did
 * not exit normally). */
void san_parse(san_tool t, const char *text, int exit_status, san_verdict *out);

#endif
