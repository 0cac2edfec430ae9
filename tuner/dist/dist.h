/* dist: messages between the processes of one run started as several ranks (mpirun, srun).
 * dist_mpi.c, built only with -DCUTUNE_MPI=ON, is the only unit that includes mpi.h;
 * without it dist_none.c makes every run a single process (rank 0 of 1).
 *
 * Failure model: MPI's default error handler aborts the whole job on any communication error;
 * dist sets MPI_ERRORS_RETURN, so an error is a value here. Open MPI without ULFM does not
 * tell the others that a rank died: the caller (engine/exec_ranks.c) notices silence (ranks send
 * a heartbeat every second) and gives the rank's work to others. Whether the job survives a
 * rank's death at all is the launcher's choice (mpirun --enable-recovery; srun --no-kill):
 * see docs/DISTRIBUTED.md.
 *
 * Ownership: payload buffers are the caller's; dist_close(NULL) does nothing. */
#ifndef CUTUNE_DIST_H
#define CUTUNE_DIST_H

#include <stddef.h>

#include "base/util.h"

typedef struct dist dist;

/* How many ranks the launcher started this process among, from its environment (Open MPI,
 * PMIx, Slurm's PMI); 1 when not started by one or when built without MPI. Cheap, no MPI call. */
int dist_launched(void);
/* This process's rank from the same environment (0 when not launched as several). */
int dist_launched_rank(void);

/* MPI_Init (once per process) when launched as several ranks; a one-process dist otherwise. */
int dist_open(dist **out, cterr *err);
int dist_rank(const dist *d);
int dist_size(const dist *d);
/* Send n bytes to rank `to` with a tag (0..1000). Buffered: returns before it is received. */
int dist_send(dist *d, int to, int tag, const void *p, size_t n, cterr *err);
/* A message from any rank: 1 with *from, *tag and payload (replaced) filled; 0 when none came
 * within timeout_ms (0: do not wait); -1 with err on a communication error. */
int dist_recv(dist *d, int *from, int *tag, dbuf *payload, int timeout_ms, cterr *err);
/* MPI_Finalize, which waits for every rank to finalize too — and, in Open MPI 4 without
 * ULFM, hangs when one has died. abandon != 0 (some rank was lost) skips it: the process ends
 * without MPI_Finalize, which mpirun then reports. */
void dist_close(dist *d, int abandon);
#endif
