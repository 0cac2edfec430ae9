/* progress: what a user watches while a run goes on.
 *
 * On a terminal, one line redrawn in place (\r, clear to end of line, never wider than the
 * terminal so it cannot wrap): a bar, done/total, failures, the best so far with its GB/s and
 * a shortened configuration, the rate (configurations per second) and the time left. When
 * the output is not a terminal (CI logs, a file) plain lines instead, at most one every ~2 s
 * or every 10 % of the total, and a summary at the end.
 *
 * progress_log prints a message above the bar without garbling it (the bar is cleared,
 * the message written, the bar drawn again). Every line goes out in one write, after the
 * other standard stream is flushed, so that progress on stderr and tables on stdout sharing
 * one log (2>&1 | tee) never break each other's lines (main.c line-buffers both).
 *
 * Ownership: the progress owns its copy of the label and of the best configuration; it
 * writes to `out` but never closes it. progress_free(NULL) does nothing. Not thread-safe:
 * one thread drives it (the run loop). */
#ifndef CUTUNE_PROGRESS_H
#define CUTUNE_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

typedef struct progress progress;

/* tty: 1 or 0 to force a mode, -1 to ask isatty(fileno(out)). total 0: unknown (no bar/ETA). */
progress *progress_new(FILE *out, const char *label, size_t total, int tty);
void progress_set_total(progress *p, size_t total);
/* quiet: no bar, no progress lines, no summary (-q); progress_log still writes. */
void progress_set_quiet(progress *p, int quiet);
/* One configuration finished. failed: 0 measured; PROGRESS_INVALID invalid (over a device limit,
 * or a geometry or architecture it cannot run with: data, not a failure, counted apart); any
 * other value a failure. Its figures are ignored unless 0. t_ms:
 * median time in ms (NAN if none); gbps NAN if unknown. */
#define PROGRESS_INVALID 2
void progress_step(progress *p, int failed, double t_ms, double gbps, const char *config);
/* The rate given to progress_step is GFLOP/s (a space that gives flops): show TFLOP/s. */
void progress_show_tflops(progress *p);
/* n configurations answered from the results store (resume): done, but not part of the rate. */
void progress_skip(progress *p, size_t n);
/* A message line (no trailing newline needed) shown above the bar. */
void progress_log(progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Final state: the bar drawn once more and ended with a newline, or a summary line. */
void progress_finish(progress *p);
void progress_free(progress *p);

/* For tests: the clock (seconds, monotonic) and the terminal width (0: ask the terminal). */
void progress_set_clock(progress *p, double (*now)(void));
void progress_set_width(progress *p, int columns);

/* counters, for callers that summarise */
size_t progress_done(const progress *p);
size_t progress_failed(const progress *p); /* failures, the invalid ones not counted */
size_t progress_invalid(const progress *p);

#endif
