/* proc: worker processes of the coordinator — spawn `self_exe <hidden command>` with pipes on
 * its stdin/stdout (and stderr when asked), and reap it with a description of how it ended.
 * Shared by the compile pool and the GPU worker's coordinator side.
 *
 * A child gets its own process group, so a terminal's Ctrl-C reaches the coordinator alone: it
 * finishes the measurement in hand and stops its workers itself, instead of every worker dying
 * mid-job and the job being recorded as a fault. An orphaned worker reads EOF and exits.
 * The child starts with an empty signal mask and default SIGPIPE/SIGINT handling, whatever the
 * coordinator set up for itself. Our pipe ends are close-on-exec, so they never leak into
 * other children. */
#ifndef CUTUNE_PROC_H
#define CUTUNE_PROC_H

#include <stddef.h>
#include <sys/types.h>

typedef struct proc {
  pid_t pid;       /* 0 when not running */
  int to;          /* the child's stdin, -1 when closed */
  int from;        /* the child's stdout */
  int err;         /* the child's stderr, -1 unless captured */
  int last_signal; /* the signal that ended it, as found by the last proc_reap; 0 if none */
} proc;

void proc_init(proc *p); /* not running, every descriptor -1 */
/* Start exe with argv (argv[0] included). Returns 0, or an errno value (nothing left open). */
int proc_spawn(proc *p, const char *exe, char *const argv[], int capture_stderr);
void proc_close_pipes(proc *p);
/* Close the pipes and reap the child: SIGKILL first when kill_first; otherwise wait grace_s
 * seconds (< 0: as long as it takes) before killing it. `how` (may be NULL) receives e.g.
 * "was killed by SIGKILL (signal 9: Killed)" or "exited with status 3". */
void proc_reap(proc *p, int kill_first, double grace_s, char *how, size_t howlen);

#endif
