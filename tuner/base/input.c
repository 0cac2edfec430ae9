/* input: see input.h. */
#include "input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

size_t input_data_max(void) {
  const char *e = getenv("CUTUNE_MAX_INPUT_MB");
  char *end;
  double mb = e && *e ? strtod(e, &end) : 0;
  if (!e || !*e || *end || !(mb > 0) || mb > 1e7) return (size_t)256 << 20;
  return (size_t)(mb * 1048576.0);
}

static void size_text(char *buf, size_t n, double bytes) {
  if (bytes >= 1048576.0) snprintf(buf, n, "%.1f MiB", bytes / 1048576.0);
  else snprintf(buf, n, "%.0f bytes", bytes);
}

static int too_big(const char *path, const char *what, size_t max, const char *how, cterr *err) {
  char cap[32];
  size_text(cap, sizeof cap, (double)max);
  if (max == INPUT_SOURCE_MAX)
    return cterr_set(err, "%s: the %s is %s than %s (the cap on source files)", path, what, how, cap);
  return cterr_set(err, "%s: the %s is %s than %s (the cap; raise it with CUTUNE_MAX_INPUT_MB=N)", path, what, how,
                   cap);
}

int input_check(const char *path, const char *what, size_t max, cterr *err) {
  struct stat st;
  if (stat(path, &st) != 0) return cterr_set(err, "%s: cannot open the %s: %s", path, what, strerror(errno));
  if (S_ISDIR(st.st_mode)) return cterr_set(err, "%s: the %s is a directory, not a file", path, what);
  if (!S_ISREG(st.st_mode))
    return cterr_set(err, "%s: the %s is not a regular file (a device, FIFO or socket never ends)", path, what);
  if ((unsigned long long)st.st_size > max) {
    char have[32];
    size_text(have, sizeof have, (double)st.st_size);
    char how[48];
    snprintf(how, sizeof how, "%s, larger", have);
    return too_big(path, what, max, how, err);
  }
  return 0;
}

static int read_plain(FILE *f, const char *path, const char *what, size_t max, dbuf *out, cterr *err) {
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    if (out->len + n > max) return too_big(path, what, max, "larger", err); /* it grew since the check */
    dbuf_append(out, buf, n);
  }
  if (ferror(f)) return cterr_set(err, "%s: read error: %s", path, strerror(errno));
  return 0;
}

static int read_gzip(const char *path, const char *what, size_t max, dbuf *out, cterr *err) {
  gzFile gz = gzopen(path, "rb");
  if (!gz) return cterr_set(err, "%s: cannot open the %s as gzip", path, what);
  char buf[65536];
  int n, rc = 0;
  while ((n = gzread(gz, buf, sizeof buf)) > 0) {
    if (out->len + (size_t)n > max) {
      rc = too_big(path, what, max, "decompressed larger", err);
      break;
    }
    dbuf_append(out, buf, (size_t)n);
  }
  if (rc == 0 && n < 0) {
    int zerr = 0;
    const char *zmsg = gzerror(gz, &zerr);
    rc = cterr_set(err, "%s: the %s's gzip data is corrupt (%s)", path, what, zmsg ? zmsg : "?");
  }
  gzclose(gz);
  return rc;
}

int input_read(const char *path, const char *what, size_t max, int gunzip, dbuf *out, cterr *err) {
  dbuf_reset(out);
  if (input_check(path, what, gunzip ? (size_t)-1 : max, err) < 0) return -1;
  FILE *f = fopen(path, "rb");
  if (!f) return cterr_set(err, "%s: cannot open the %s: %s", path, what, strerror(errno));
  unsigned char magic[2] = {0, 0};
  size_t got = fread(magic, 1, 2, f);
  int rc;
  if (gunzip && got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    fclose(f);
    rc = read_gzip(path, what, max, out, err);
  } else {
    if (got) dbuf_append(out, magic, got);
    if (got > max) rc = too_big(path, what, max, "larger", err);
    else rc = read_plain(f, path, what, max, out, err);
    fclose(f);
  }
  if (rc == 0 && !out->data) dbuf_append(out, "", 0);
  if (rc < 0) dbuf_reset(out);
  return rc;
}
