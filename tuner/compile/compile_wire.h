/* compile_wire: the private protocol between the compile pool (compile_pool.c) and its
 * worker processes (compile_worker_main in compile_wire.c). Internal to the compile unit.
 *
 * Every message is a frame: a 4-byte length (host order: both ends are the same binary
 * on the same machine) then that many bytes of body. A body opens with a 4-byte magic
 * (job or result), then fields: 32-bit integers, doubles, and byte strings as a 4-byte
 * length (0xffffffff for NULL) followed by the bytes.
 *
 * A batch (compile_now_batch) is one frame of its own, "CBTH": the count, then each member as a
 * job frame's body; the worker answers it with one result frame per member, in order.
 *
 * Ownership: wire_decode_job fills a wire_job whose strings it owns (wire_job_free);
 * wire_decode_result fills a caller-initialised compile_result. */
#ifndef CUTUNE_COMPILE_WIRE_H
#define CUTUNE_COMPILE_WIRE_H

#include "compile.h"

#define WIRE_MAX_FRAME (1u << 30)

typedef struct wire_job {
  compile_job job; /* pointers into the owned strings below */
  char *strs[4 + COMPILE_MAX_OPTS + COMPILE_MAX_NAMES];
  int nstrs;
  struct wire_job *next; /* the rest of the chain (compile_job.next), owned */
} wire_job;

/* Copy a job so that it owns its strings (also used by the pool for its queue). */
void wire_job_copy(wire_job *dst, const compile_job *src);
void wire_job_free(wire_job *j);

/* Append one whole frame (length included) to out. */
void wire_encode_job(dbuf *out, const compile_job *job);
void wire_encode_result(dbuf *out, const compile_result *res);
/* n jobs (1..COMPILE_BATCH_MAX) as one frame: a job frame for one, a batch frame for more. */
void wire_encode_batch(dbuf *out, const compile_job *const *jobs, int n);
/* Decode one frame body (without its length). 0 on success, -1 if malformed. */
int wire_decode_job(const char *body, size_t n, wire_job *out);
/* A job or batch frame's body: up to max jobs into out, their count in *count; 0, or -1 if
 * malformed (nothing left to free). */
int wire_decode_jobs(const char *body, size_t n, wire_job *out, int max, int *count);
int wire_decode_result(const char *body, size_t n, compile_result *res);

/* Write all of p to fd; a reader that has gone away gives -1 (errno EPIPE) without
 * SIGPIPE reaching this process. */
int wire_write_all(int fd, const void *p, size_t n);

#endif
