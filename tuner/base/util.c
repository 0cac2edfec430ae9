/* util: see util.h. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void cterr_vset(cterr *err, int code, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
static void cterr_vset(cterr *err, int code, const char *fmt, va_list ap) {
  if (!err) return;
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  err->code = code;
}

int cterr_set(cterr *err, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cterr_vset(err, CTERR_OTHER, fmt, ap);
  va_end(ap);
  return -1;
}

int cterr_set_code(cterr *err, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cterr_vset(err, code, fmt, ap);
  va_end(ap);
  return -1;
}

int cterr_wrap(cterr *err, const char *fmt, ...) {
  if (err) {
    char prefix[1024], old[CTERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t n = strlen(prefix);
    if (n > sizeof err->msg - 3) n = sizeof err->msg - 3;
    memcpy(err->msg, prefix, n);
    memcpy(err->msg + n, ": ", 2);
    size_t room = sizeof err->msg - n - 3, ol = strlen(old);
    if (ol > room) ol = room;
    memcpy(err->msg + n + 2, old, ol);
    err->msg[n + 2 + ol] = 0;
  }
  return -1;
}

void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fputs("cutune: out of memory\n", stderr);
    abort();
  }
  return p;
}
void *xcalloc(size_t n, size_t m) {
  void *p = calloc(n ? n : 1, m ? m : 1);
  if (!p) {
    fputs("cutune: out of memory\n", stderr);
    abort();
  }
  return p;
}
void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) {
    fputs("cutune: out of memory\n", stderr);
    abort();
  }
  return p;
}
char *xstrdup(const char *s) {
  size_t n = strlen(s) + 1;
  return memcpy(xmalloc(n), s, n);
}
char *xasprintf(const char *fmt, ...) {
  dbuf b;
  dbuf_init(&b);
  va_list ap;
  va_start(ap, fmt);
  dbuf_vprintf(&b, fmt, ap);
  va_end(ap);
  return dbuf_steal(&b);
}

/* ---- dbuf ---- */
void dbuf_init(dbuf *b) { b->data = NULL, b->len = b->cap = 0; }
void dbuf_free(dbuf *b) {
  free(b->data);
  dbuf_init(b);
}
void dbuf_reset(dbuf *b) {
  b->len = 0;
  if (b->data) b->data[0] = 0;
}
static void dbuf_reserve(dbuf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) cap *= 2;
  b->data = xrealloc(b->data, cap);
  b->cap = cap;
}
void dbuf_append(dbuf *b, const void *p, size_t n) {
  dbuf_reserve(b, n);
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = 0;
}
void dbuf_puts(dbuf *b, const char *s) { dbuf_append(b, s, strlen(s)); }
void dbuf_vprintf(dbuf *b, const char *fmt, va_list ap) {
  if (!fmt) return; /* never meant; and the sanitizer build's null checks made gcc warn of it */
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return;
  dbuf_reserve(b, (size_t)n);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}
void dbuf_printf(dbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  dbuf_vprintf(b, fmt, ap);
  va_end(ap);
}
void dbuf_json_str(dbuf *b, const char *s) {
  dbuf_append(b, "\"", 1);
  if (!s) s = "";
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': dbuf_puts(b, "\\\""); break;
    case '\\': dbuf_puts(b, "\\\\"); break;
    case '\n': dbuf_puts(b, "\\n"); break;
    case '\r': dbuf_puts(b, "\\r"); break;
    case '\t': dbuf_puts(b, "\\t"); break;
    default:
      if (*p < 0x20) dbuf_printf(b, "\\u%04x", *p);
      else dbuf_append(b, p, 1);
    }
  }
  dbuf_append(b, "\"", 1);
}
void dbuf_json_num(dbuf *b, double v) {
  if (!isfinite(v)) {
    dbuf_puts(b, "null");
    return;
  }
  if (fabs(v) < 9e15 && v == (double)(long long)v) { /* the range first: a cast out of it is undefined */
    dbuf_printf(b, "%lld", (long long)v);
    return;
  }
  char tmp[64];
  /* shortest representation that reads back exactly */
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    if (strtod(tmp, NULL) == v) break;
  }
  dbuf_puts(b, tmp);
}
char *dbuf_steal(dbuf *b) {
  char *p = b->data ? b->data : xstrdup("");
  dbuf_init(b);
  return p;
}

/* ---- SHA-256 (FIPS 180-4) ---- */
static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
static void sha256_block(sha256_ctx *c, const uint8_t *p) {
  uint32_t w[64], a, b, d, e, f, g, h, cc;
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3], e = c->h[4], f = c->h[5], g = c->h[6], h = c->h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
    uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
    h = g, g = f, f = e, e = d + t1, d = cc, cc = b, b = a, a = t1 + t2;
  }
  c->h[0] += a, c->h[1] += b, c->h[2] += cc, c->h[3] += d;
  c->h[4] += e, c->h[5] += f, c->h[6] += g, c->h[7] += h;
}
void sha256_init(sha256_ctx *c) {
  static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(c->h, h0, sizeof h0);
  c->len = 0, c->fill = 0;
}
void sha256_update(sha256_ctx *c, const void *pv, size_t n) {
  const uint8_t *p = pv;
  c->len += n;
  while (n) {
    size_t k = 64 - c->fill;
    if (k > n) k = n;
    memcpy(c->buf + c->fill, p, k);
    c->fill += k, p += k, n -= k;
    if (c->fill == 64) sha256_block(c, c->buf), c->fill = 0;
  }
}
void sha256_final(sha256_ctx *c, uint8_t out[32]) {
  uint64_t bits = c->len * 8;
  uint8_t pad = 0x80, zero = 0, lenb[8];
  sha256_update(c, &pad, 1);
  while (c->fill != 56) sha256_update(c, &zero, 1);
  for (int i = 0; i < 8; i++) lenb[i] = (uint8_t)(bits >> (56 - 8 * i));
  sha256_update(c, lenb, 8);
  for (int i = 0; i < 8; i++) {
    out[4 * i] = (uint8_t)(c->h[i] >> 24), out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
    out[4 * i + 2] = (uint8_t)(c->h[i] >> 8), out[4 * i + 3] = (uint8_t)c->h[i];
  }
}
void hex_encode(const uint8_t *p, size_t n, char *out) {
  static const char hx[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) out[2 * i] = hx[p[i] >> 4], out[2 * i + 1] = hx[p[i] & 15];
  out[2 * n] = 0;
}
uint64_t checksum64(const void *data, size_t n) {
  const unsigned char *p = data;
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h ^ (h >> 29);
}

void sha256_hex(const void *p, size_t n, char *out, int nbytes) {
  sha256_ctx c;
  uint8_t d[32];
  sha256_init(&c);
  sha256_update(&c, p, n);
  sha256_final(&c, d);
  if (nbytes > 32) nbytes = 32;
  hex_encode(d, (size_t)nbytes, out);
}

/* ---- rng ---- */
static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
void rng_seed(rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&seed);
}
static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
uint64_t rng_next(rng *r) {
  uint64_t *s = r->s, res = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl64(s[3], 45);
  return res;
}
uint64_t rng_below(rng *r, uint64_t n) {
  uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;
  do x = rng_next(r);
  while (x >= lim);
  return x % n;
}
double rng_uniform(rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }
double rng_normal(rng *r) {
  double u1 = rng_uniform(r), u2 = rng_uniform(r);
  if (u1 < 1e-300) u1 = 1e-300;
  return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* ---- files ---- */
int file_read(const char *path, dbuf *out, cterr *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return cterr_set(err, "%s: cannot open: %s", path, strerror(errno));
  char buf[65536];
  size_t n;
  dbuf_reset(out);
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) dbuf_append(out, buf, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) return cterr_set(err, "%s: read error", path);
  if (!out->data) dbuf_append(out, "", 0);
  return 0;
}
int file_write_atomic(const char *path, const void *p, size_t n, cterr *err) {
  char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    cterr_set(err, "%s: cannot create: %s", tmp, strerror(errno));
    free(tmp);
    return -1;
  }
  const char *c = p;
  size_t left = n;
  while (left) {
    ssize_t w = write(fd, c, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      cterr_set(err, "%s: write failed: %s", tmp, strerror(errno));
      close(fd), unlink(tmp), free(tmp);
      return -1;
    }
    c += w, left -= (size_t)w;
  }
  if (close(fd) != 0 || rename(tmp, path) != 0) {
    cterr_set(err, "%s: cannot write: %s", path, strerror(errno));
    unlink(tmp), free(tmp);
    return -1;
  }
  free(tmp);
  return 0;
}
/* The file a chain of symbolic links ends at (path itself when it is none; a link to a file
 * that does not exist yet gives that file's path). Caller frees. */
static char *follow_links(const char *path, cterr *err) {
  char *cur = xstrdup(path);
  for (int hops = 0;; hops++) {
    struct stat sb;
    if (lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode)) return cur;
    if (hops == 40) {
      cterr_set(err, "%s: too many levels of symbolic links", path);
      free(cur);
      return NULL;
    }
    char to[4096];
    ssize_t n = readlink(cur, to, sizeof to - 1);
    if (n < 0) {
      cterr_set(err, "%s: cannot read the link: %s", cur, strerror(errno));
      free(cur);
      return NULL;
    }
    to[n] = 0;
    char *next;
    if (to[0] == '/') next = xstrdup(to);
    else {
      const char *slash = strrchr(cur, '/');
      next = slash ? xasprintf("%.*s/%s", (int)(slash - cur), cur, to) : xstrdup(to);
    }
    free(cur);
    cur = next;
  }
}

int file_write_output(const char *path, const void *p, size_t n, cterr *err) {
  char *target = follow_links(path, err);
  if (!target) return -1;
  struct stat sb;
  int rc = -1;
  if (stat(target, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    cterr_set(err, "%s is a folder: give a file name", path);
  } else if (stat(target, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    /* a FIFO, a terminal, /dev/null: written in place, as the shell's > would */
    int fd = open(target, O_WRONLY | O_CLOEXEC);
    if (fd < 0) cterr_set(err, "%s: cannot open for writing: %s", path, strerror(errno));
    else {
      const char *c = p;
      size_t left = n;
      while (left) {
        ssize_t w = write(fd, c, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        c += w, left -= (size_t)w;
      }
      if (left) cterr_set(err, "%s: write failed: %s", path, strerror(errno));
      if (close(fd) != 0 && !left) cterr_set(err, "%s: write failed: %s", path, strerror(errno)), left = 1;
      rc = left ? -1 : 0;
    }
  } else {
    /* a regular file (or none yet): replaced whole, never left half written; its mode is kept */
    int had = stat(target, &sb) == 0;
    rc = file_write_atomic(target, p, n, err);
    if (rc == 0 && had) chmod(target, sb.st_mode & 07777);
  }
  free(target);
  return rc;
}

int mkdir_p(const char *path, cterr *err) {
  char *p = xstrdup(path);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(p, 0755) != 0 && errno != EEXIST) goto fail;
    *s = '/';
  }
  if (mkdir(p, 0755) != 0 && errno != EEXIST) goto fail;
  free(p);
  return 0;
fail:
  cterr_set(err, "cannot create directory %s: %s", p, strerror(errno));
  free(p);
  return -1;
}
int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}
int dir_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
char *path_dirname(const char *path) {
  const char *s = strrchr(path, '/');
  if (!s) return xstrdup(".");
  if (s == path) return xstrdup("/");
  char *d = xmalloc((size_t)(s - path) + 1);
  memcpy(d, path, (size_t)(s - path));
  d[s - path] = 0;
  return d;
}
char *path_join(const char *a, const char *b) {
  if (!a || !*a || b[0] == '/') return xstrdup(b);
  size_t la = strlen(a);
  return xasprintf("%s%s%s", a, a[la - 1] == '/' ? "" : "/", b);
}
const char *path_basename(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}
char *self_exe_path(void) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return NULL;
  buf[n] = 0;
  return xstrdup(buf);
}

double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
void trace_mark(const char *fmt, ...) {
  static int fd = -2;
  static double t0;
  if (fd == -1) return;
  if (fd == -2) {
    const char *path = getenv("CUTUNE_TRACE"), *z = getenv("CUTUNE_TRACE_T0");
    fd = path && path[0] ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    if (fd < 0) return;
    t0 = z && z[0] ? strtod(z, NULL) : now_seconds();
    if (!(z && z[0])) {
      char b[64];
      snprintf(b, sizeof b, "%.6f", t0);
      setenv("CUTUNE_TRACE_T0", b, 1);
    }
  }
  char line[512];
  int n = snprintf(line, sizeof line, "+%.3f s  pid %d  ", now_seconds() - t0, (int)getpid());
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && n < (int)sizeof line) n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  if (n >= (int)sizeof line - 1) n = (int)sizeof line - 2;
  line[n++] = '\n';
  (void)!write(fd, line, (size_t)n); /* one write: lines of several processes stay whole */
}

char *iso8601_now(void) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return xstrdup(buf);
}
char *slugify(const char *s) {
  char *o = xstrdup(s);
  for (char *p = o; *p; p++) {
    char c = *p;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
          c == '_'))
      *p = '_';
  }
  /* never "", ".", ".." or a hidden name: a device or space named so would put its store at
   * the results folder's root, above it or out of sight */
  if (o[0] == '.' || o[0] == 0) {
    char *t = xasprintf("_%s", o[0] == '.' ? o + 1 : o);
    free(o);
    o = t;
  }
  return o;
}
int parse_long(const char *s, long *out, const char *what, cterr *err) {
  char *end;
  errno = 0;
  long v = s ? strtol(s, &end, 10) : 0;
  if (!s || !*s || *end || errno) return cterr_set(err, "%s: expected an integer, got '%s'", what, s ? s : "");
  *out = v;
  return 0;
}
int parse_double(const char *s, double *out, const char *what, cterr *err) {
  char *end;
  errno = 0;
  double v = s ? strtod(s, &end) : 0;
  if (!s || !*s || *end || errno || !isfinite(v))
    return cterr_set(err, "%s: expected a number, got '%s'", what, s ? s : "");
  *out = v;
  return 0;
}

int fd_write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    c += w, n -= (size_t)w;
  }
  return 0;
}

int fd_read_all(int fd, void *p, size_t n) {
  char *c = p;
  while (n) {
    ssize_t r = read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) errno = 0;
    if (r <= 0) return -1;
    c += r, n -= (size_t)r;
  }
  return 0;
}
