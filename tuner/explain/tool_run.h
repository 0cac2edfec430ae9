/* tool_run: finding and running the external tools of tuner/explain (ncu, compute-sanitizer)
 * through base/proc.c — output of both streams captured, a wall-clock limit, the exit status.
 * Ownership: returned paths are the caller's to free; out is the caller's dbuf. */
#ifndef CUTUNE_TOOL_RUN_H
#define CUTUNE_TOOL_RUN_H

#include "base/util.h"

/* An executable for `name`: `given` when not NULL (NULL returned if it is not executable),
 * else the first of $PATH, /usr/local/cuda/bin, $CUDA_HOME/bin that has it. */
char *tool_find(const char *given, const char *name);

/* Run argv[0] with argv, stdin closed, stdout and stderr appended to out (interleaved as they
 * come, at most 256 MiB kept). After timeout_s seconds (<= 0: none) the tool is killed.
 * *status: its exit status, or -1 when it was killed or died of a signal (how says which:
 * "was killed by SIGKILL ...", "timed out after 300 s"). Returns -1 (err) only when it could
 * not be started. */
int tool_run(char *const argv[], double timeout_s, dbuf *out, int *status, char *how, size_t howlen, cterr *err);

#endif
