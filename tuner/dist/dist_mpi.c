/* dist_mpi: dist over MPI (built with -DCUTUNE_MPI=ON); the only unit that includes mpi.h.
 * See dist.h for the failure model.
 *
 * MPI has no receive with a timeout: dist_recv polls MPI_Iprobe, sleeping 200 us between
 * probes (rank 0 and the ranks spend their time waiting on GPU workers, not here). Sends are
 * MPI_Send of small messages (a task, a record of a few kB): Open MPI sends them eagerly, so
 * a send to a rank that has died returns instead of waiting. */
#ifdef CUTUNE_MPI
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dist.h"

struct dist {
  int rank, size, inited;
};

static int mpi_err(int rc, const char *what, cterr *err) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  return cterr_set(err, "%s: %.*s", what, len, msg);
}

int dist_open(dist **out, cterr *err) {
  *out = NULL;
  dist *d = xcalloc(1, sizeof *d);
  d->size = 1;
  if (dist_launched() > 1) {
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
      int provided, rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided);
      if (rc != MPI_SUCCESS) {
        free(d);
        return mpi_err(rc, "MPI_Init", err);
      }
    }
    d->inited = 1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &d->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d->size);
  }
  *out = d;
  return 0;
}

int dist_rank(const dist *d) { return d->rank; }
int dist_size(const dist *d) { return d->size; }

int dist_send(dist *d, int to, int tag, const void *p, size_t n, cterr *err) {
  if (!d->inited) return cterr_set(err, "dist_send: not started as several ranks");
  if (n > (size_t)1 << 30) return cterr_set(err, "dist_send: %zu bytes is too large a message", n);
  int rc = MPI_Send(p, (int)n, MPI_BYTE, to, tag, MPI_COMM_WORLD);
  return rc == MPI_SUCCESS ? 0 : mpi_err(rc, "MPI_Send", err);
}

int dist_recv(dist *d, int *from, int *tag, dbuf *payload, int timeout_ms, cterr *err) {
  if (!d->inited) return cterr_set(err, "dist_recv: not started as several ranks");
  double until = now_seconds() + (timeout_ms > 0 ? timeout_ms / 1000.0 : 0);
  for (;;) {
    int flag = 0;
    MPI_Status st;
    int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (rc != MPI_SUCCESS) return mpi_err(rc, "MPI_Iprobe", err);
    if (flag) {
      int n = 0;
      MPI_Get_count(&st, MPI_BYTE, &n);
      char *buf = xmalloc((size_t)n + 1);
      rc = MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) {
        free(buf);
        return mpi_err(rc, "MPI_Recv", err);
      }
      dbuf_reset(payload);
      dbuf_append(payload, buf, (size_t)n);
      free(buf);
      *from = st.MPI_SOURCE;
      *tag = st.MPI_TAG;
      return 1;
    }
    if (now_seconds() >= until) return 0;
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
  }
}

void dist_close(dist *d, int abandon) {
  if (!d) return;
  if (d->inited && !abandon) MPI_Finalize();
  free(d);
}
#else
typedef int dist_mpi_unused; /* ISO C: a translation unit is not empty */
#endif
