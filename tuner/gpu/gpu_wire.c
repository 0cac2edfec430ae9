/* gpu_wire: frame encoding shared by the coordinator and the GPU worker (see gpu_wire.h). */
#include "gpu_wire.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "store/record.h"

void wire_make_header(unsigned char hdr[16], uint32_t type, uint64_t len) {
  uint32_t magic = WIRE_MAGIC;
  memcpy(hdr, &magic, 4);
  memcpy(hdr + 4, &type, 4);
  memcpy(hdr + 8, &len, 8);
}

int wire_check_header(const unsigned char hdr[16], uint32_t *type, uint64_t *len, cterr *err) {
  uint32_t magic;
  memcpy(&magic, hdr, 4);
  memcpy(type, hdr + 4, 4);
  memcpy(len, hdr + 8, 8);
  if (magic != WIRE_MAGIC)
    return cterr_set(err, "GPU worker protocol: bad frame magic 0x%08x (expected 0x%08x): stray output on the pipe?",
                     magic, WIRE_MAGIC);
  if (*len > WIRE_MAX_PAYLOAD)
    return cterr_set(err, "GPU worker protocol: frame of %llu bytes (at most %llu expected)", (unsigned long long)*len,
                     (unsigned long long)WIRE_MAX_PAYLOAD);
  return 0;
}

static int write_all(int fd, const void *p, size_t n, cterr *err) {
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return cterr_set(err, "GPU worker pipe: write failed: %s", strerror(errno));
    c += w;
    n -= (size_t)w;
  }
  return 0;
}

static int read_all(int fd, void *p, size_t n, cterr *err) {
  char *c = p;
  while (n) {
    ssize_t r = read(fd, c, n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return cterr_set(err, "GPU worker pipe: read failed: %s", strerror(errno));
    if (r == 0) return cterr_set(err, "GPU worker pipe: end of file");
    c += r;
    n -= (size_t)r;
  }
  return 0;
}

int wire_write(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen, const void *c,
               size_t clen, cterr *err) {
  unsigned char hdr[16];
  wire_make_header(hdr, type, (uint64_t)alen + blen + clen);
  if (write_all(fd, hdr, sizeof hdr, err)) return -1;
  if (alen && write_all(fd, a, alen, err)) return -1;
  if (blen && write_all(fd, b, blen, err)) return -1;
  if (clen && write_all(fd, c, clen, err)) return -1;
  return 0;
}

int wire_read(int fd, uint32_t *type, dbuf *payload, cterr *err) {
  unsigned char hdr[16];
  uint64_t len;
  if (read_all(fd, hdr, sizeof hdr, err)) return -1;
  if (wire_check_header(hdr, type, &len, err)) return -1;
  dbuf_reset(payload);
  if (len) {
    char tmp[65536];
    while (len) {
      size_t n = len < sizeof tmp ? (size_t)len : sizeof tmp;
      if (read_all(fd, tmp, n, err)) return -1;
      dbuf_append(payload, tmp, n);
      len -= n;
    }
  }
  return 0;
}

int wire_write_error(int fd, const cterr *e, cterr *err) {
  wire_error we;
  memset(&we, 0, sizeof we);
  we.code = e->code;
  return wire_write(fd, MSG_ERROR, &we, sizeof we, e->msg, strlen(e->msg), NULL, 0, err);
}

const char *wire_error_text(const dbuf *payload, int *code) {
  wire_error we = {CTERR_OTHER};
  const char *text = "GPU worker protocol: an ERROR too short for its code";
  if (payload->len >= sizeof we) {
    memcpy(&we, payload->data, sizeof we);
    text = payload->data + sizeof we; /* a dbuf's data is NUL-terminated */
  }
  if (code) *code = we.code;
  return text;
}

void wire_result_init(wire_result *r) {
  memset(r, 0, sizeof *r);
  r->status = ST_OK;
  r->t_median = r->t_min = r->t_mean = r->t_std = r->t_isolated = r->t_iso_floor = r->measure_ms = NAN;
  r->load_ms = r->check_ms = r->timing_ms = r->isolated_ms = r->t_raced = NAN;
  r->samples = 0;
  r->gbps = r->copy_share = r->gflops = r->energy_mj = NAN;
  r->regs = r->smem_static = r->smem_dynamic = r->local_bytes = r->block_threads = -1;
  r->occupancy = NAN;
  r->sm_clock_mhz = r->mem_clock_mhz = r->temperature_c = NAN;
  r->throttle_reasons = -1;
}
