/* util: the small pieces every unit shares.
 *
 * - cterr: an error record. Fallible functions return 0 on success and -1 on failure
 *   after filling the record with a message that says what, where and what was expected.
 *   Nothing below main.c prints errors or exits: callers decide. The few errors a caller acts
 *   on (rather than passes on) carry a code too, so that no caller reads the message.
 * - dbuf: a growable byte buffer (always NUL-terminated, so text can be used as a string).
 * - sha256 / hex helpers for content hashes (compile cache keys, provenance).
 * - rng: a seeded xoshiro256** generator; every random choice in cutune takes one, so runs
 *   repeat under a seed.
 * - small file and path helpers.
 * Ownership: a dbuf owns its data; dbuf_free releases it. Functions returning char* return
 * memory the caller frees. */
#ifndef CUTUNE_UTIL_H
#define CUTUNE_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define CTERR_MAX 4096
/* cterr.code: what a caller may act on; every other error is CTERR_OTHER. */
enum {
  CTERR_OTHER = 0,
  CTERR_NO_DEVICE, /* no CUDA driver or no CUDA device (gpu.h: gpu_error_is_no_device) */
  CTERR_SPACE,     /* the space's own code failed when asked about a configuration: a Lua error
                      (raised, or the sandbox's time or memory limit) or an answer of the wrong
                      type or count (space.h: "Errors of a configuration's functions") */
};
typedef struct cterr {
  char msg[CTERR_MAX];
  int code; /* CTERR_*: set with the message (cterr_set: CTERR_OTHER), kept by cterr_wrap */
} cterr;

/* Fill err (if not NULL) and return -1, so `return cterr_set(err, ...)` reads naturally. */
int cterr_set(cterr *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* cterr_set with a code (CTERR_*). Returns -1. */
int cterr_set_code(cterr *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Prepend context: "context: previous message"; the code stays. Returns -1. */
int cterr_wrap(cterr *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct dbuf {
  char *data;
  size_t len, cap;
} dbuf;
void dbuf_init(dbuf *b);
void dbuf_free(dbuf *b);
void dbuf_reset(dbuf *b); /* len = 0, keeps memory */
void dbuf_append(dbuf *b, const void *p, size_t n);
void dbuf_puts(dbuf *b, const char *s);
void dbuf_printf(dbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dbuf_vprintf(dbuf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Append s as a JSON string literal (quotes and escapes included). */
void dbuf_json_str(dbuf *b, const char *s);
/* Append a double as JSON: finite values with %.17g precision trimmed, non-finite as null. */
void dbuf_json_num(dbuf *b, double v);
char *dbuf_steal(dbuf *b); /* returns data (never NULL), leaves b empty */

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* SHA-256 */
typedef struct sha256_ctx {
  uint32_t h[8];
  uint64_t len;
  uint8_t buf[64];
  size_t fill;
} sha256_ctx;
void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *p, size_t n);
void sha256_final(sha256_ctx *c, uint8_t out[32]);
/* hex of the first nbytes of the digest of p[0..n): out must hold 2*nbytes+1 */
void sha256_hex(const void *p, size_t n, char *out, int nbytes);
/* A cheap 64-bit checksum, 8 bytes per step (not cryptographic: it catches a cut or changed
 * image, and tells images apart before a byte compare). */
uint64_t checksum64(const void *p, size_t n);
void hex_encode(const uint8_t *p, size_t n, char *out);

/* xoshiro256** seeded with splitmix64 */
typedef struct rng {
  uint64_t s[4];
} rng;
void rng_seed(rng *r, uint64_t seed);
uint64_t rng_next(rng *r);
uint64_t rng_below(rng *r, uint64_t n); /* uniform in [0, n), n > 0 */
double rng_uniform(rng *r);             /* uniform in [0, 1) */
double rng_normal(rng *r);              /* standard normal */

/* files and paths */
int file_read(const char *path, dbuf *out, cterr *err); /* whole file */
/* What a user's -o FILE gets: a symbolic link is followed and its target written (the link
 * stays), a FIFO or device is written in place, a regular file is replaced atomically
 * (file_write_atomic, keeping its mode); a folder is an error. */
int file_write_output(const char *path, const void *p, size_t n, cterr *err);
int file_write_atomic(const char *path, const void *p, size_t n, cterr *err); /* tmp + rename */
int mkdir_p(const char *path, cterr *err);
int file_exists(const char *path);
/* 1 if path names a directory (after symbolic links) */
int dir_exists(const char *path);
/* All n bytes to (from) a descriptor, through short writes (reads) and EINTR: 0, or -1 on an
 * error or (reading) the end of the file first; errno says which. */
int fd_write_all(int fd, const void *p, size_t n);
int fd_read_all(int fd, void *p, size_t n);
char *path_dirname(const char *path);
char *path_join(const char *a, const char *b);
const char *path_basename(const char *path);
char *self_exe_path(void); /* /proc/self/exe resolved; NULL if unknown */

double now_seconds(void); /* monotonic clock */
/* Where a run's time goes, for whoever profiles cutune itself: with CUTUNE_TRACE=FILE set, one
 * line per call appended to FILE ("+1.234 s  pid 4321  <what>"), seconds since the first
 * process of the run called it (CUTUNE_TRACE_T0, which it sets and its workers inherit: the
 * monotonic clock is the machine's). Without CUTUNE_TRACE, nothing. */
void trace_mark(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *iso8601_now(void);  /* UTC, e.g. 2026-11-29T14:08:04Z */

/* Turn an arbitrary name into something safe for a file name: [A-Za-z0-9._-], others '_'; a
 * leading '.' (as in ".", "..", ".x") becomes '_', and "" becomes "_". */
char *slugify(const char *s);

/* Parse helpers for command-line values: return 0 and set *out, or -1 with err naming what. */
int parse_long(const char *s, long *out, const char *what, cterr *err);
int parse_double(const char *s, double *out, const char *what, cterr *err);

#endif
