/* gpu_worker_fill: a problem's buffers given their initial contents on the device — zeros, the
 * space's data, or the seeded fill made on the host (docs/SPACE.md, "The input fill": per argument
 * streams of the run's seed, blocks of 2^20 elements filled by several threads, rounded to the
 * buffer's type) and copied in stages; the float to half and bfloat16 roundings they share with
 * the scalars. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_worker_int.h"

/* float -> IEEE half bits, round to nearest even (host-side fill of half buffers) */
uint16_t wk_f2h(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
  int e = (int)((x >> 23) & 0xff);
  if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
  int exp = e - 127 + 15;
  if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    mant |= 0x800000u;
    int shift = 14 - exp;
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  return (uint16_t)h;
}

/* float -> bfloat16 bits, round to nearest even (NaN stays a quiet NaN) */
uint16_t wk_f2bf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* Elements [start, start+n) of argument a, in its element type, into out. */
static void fill_chunk(const argspec *a, rng *r, int64_t start, int64_t n, unsigned char *out) {
  int isfloat = elemtype_is_float(a->type);
  double lo = a->lo, hi = a->hi;
  if (!(hi > lo)) { /* unset range: the documented defaults */
    lo = isfloat ? -1.0 : 0.0;
    hi = isfloat ? 1.0 : (a->type == EL_U8 ? 255.0 : 1000.0);
  }
  int64_t span = (int64_t)floor(hi) - (int64_t)ceil(lo) + 1;
  for (int64_t k = 0; k < n; k++) {
    double v;
    int64_t iv;
    if (a->fill == FILL_IOTA) {
      v = (double)(start + k);
      iv = start + k;
    } else if (isfloat) {
      v = lo + (hi - lo) * rng_uniform(r);
      iv = (int64_t)v;
    } else {
      iv = (int64_t)ceil(lo) + (int64_t)rng_below(r, span > 0 ? (uint64_t)span : 1);
      v = (double)iv;
    }
    switch (a->type) {
    case EL_F32: {
      float f = (float)v;
      memcpy(out + 4 * k, &f, 4);
      break;
    }
    case EL_F64: memcpy(out + 8 * k, &v, 8); break;
    case EL_F16: {
      uint16_t h = wk_f2h((float)v);
      memcpy(out + 2 * k, &h, 2);
      break;
    }
    case EL_BF16: {
      uint16_t h = wk_f2bf((float)v);
      memcpy(out + 2 * k, &h, 2);
      break;
    }
    case EL_I32:
    case EL_U32: {
      uint32_t u = (uint32_t)iv;
      memcpy(out + 4 * k, &u, 4);
      break;
    }
    case EL_I64: memcpy(out + 8 * k, &iv, 8); break;
    case EL_U8: out[k] = (unsigned char)iv; break;
    default: break;
    }
  }
}

/* The seeded fill in streams of WK_FILL_STREAM elements: element i of a buffer comes from the
 * stream of block i / WK_FILL_STREAM, seeded with the buffer's seed ^ (0xbf58476d1ce4e5b9 x
 * block): block 0's is the buffer's own, so a buffer of at most that many elements has the data
 * it had before blocks (docs/SPACE.md, "The input fill"). The blocks are independent, so a large
 * buffer (Kernel Tuner's reduction: 800 M floats, 4.7 s on one core of the H200's host) is
 * filled by several threads. */
#define WK_FILL_STREAM ((int64_t)1 << 20)
#define WK_FILL_THREADS 16
#define WK_FILL_STAGE (32 * WK_FILL_STREAM) /* elements per copy to the device */

static uint64_t fill_seed(uint64_t seed, int stream) { return seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(stream + 1)); }

/* Elements [from, to) of argument a into out (element from at out[0]); from is a multiple of
 * WK_FILL_STREAM. */
static void fill_range(const argspec *a, uint64_t base, int64_t from, int64_t to, unsigned char *out) {
  int es = wk_elsize(a->type);
  for (int64_t c0 = from; c0 < to;) {
    int64_t blk = c0 / WK_FILL_STREAM, end = (blk + 1) * WK_FILL_STREAM;
    if (end > to) end = to;
    rng g;
    rng_seed(&g, base ^ (0xbf58476d1ce4e5b9ull * (uint64_t)blk));
    fill_chunk(a, &g, c0, end - c0, out + (size_t)(c0 - from) * (size_t)es);
    c0 = end;
  }
}

typedef struct fill_task {
  const argspec *a;
  uint64_t base;
  int64_t from, to;
  unsigned char *out;
} fill_task;

static void *fill_thread(void *arg) {
  fill_task *t = arg;
  fill_range(t->a, t->base, t->from, t->to, t->out);
  return NULL;
}

/* fill_range over [from, to) on up to WK_FILL_THREADS threads, each a run of whole streams. */
static void fill_parallel(const argspec *a, uint64_t base, int64_t from, int64_t to, unsigned char *out) {
  int64_t streams = (to - from + WK_FILL_STREAM - 1) / WK_FILL_STREAM;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int nt = (int)(streams < WK_FILL_THREADS ? streams : WK_FILL_THREADS);
  if (cores > 0 && nt > cores) nt = (int)cores;
  if (nt <= 1) {
    fill_range(a, base, from, to, out);
    return;
  }
  fill_task t[WK_FILL_THREADS];
  pthread_t th[WK_FILL_THREADS];
  int started[WK_FILL_THREADS] = {0}, es = wk_elsize(a->type);
  for (int k = 0; k < nt; k++) {
    int64_t s0 = from + streams * k / nt * WK_FILL_STREAM, s1 = from + streams * (k + 1) / nt * WK_FILL_STREAM;
    t[k] = (fill_task){a, base, s0, s1 < to ? s1 : to, out + (size_t)(s0 - from) * (size_t)es};
    if (k > 0) started[k] = pthread_create(&th[k], NULL, fill_thread, &t[k]) == 0;
  }
  for (int k = 0; k < nt; k++)
    if (k == 0 || !started[k]) fill_thread(&t[k]); /* this thread's share, and any that did not start */
  for (int k = 1; k < nt; k++)
    if (started[k]) pthread_join(th[k], NULL);
}

void wk_fill_host(const argspec *a, uint64_t seed, int stream, int64_t n, unsigned char *out) {
  fill_parallel(a, fill_seed(seed, stream), 0, n, out);
}

/* Argument i's initial contents: zeros, the space's data (the setup frame's bytes at data, already
 * checked to be the buffer's size), or the seeded fill. */
int wk_upload_arg(worker *w, int i, const argspec *a, uint64_t seed, const char *data, cterr *err) {
  const cuda_api *cu = w->cu;
  wk_arg *d = &w->p->arg[i];
  CUresult r;
  if (a->fill == FILL_DATA) {
    if ((r = cu->cuMemcpyHtoD(d->d, data, d->bytes)))
      return cterr_set(err, "copying the data of argument '%s' to the device: %s", a->name, cuda_errstr(r));
    return 0;
  }
  if (a->fill == FILL_ZERO) {
    if ((r = cu->cuMemsetD8Async(d->d, 0, d->bytes, w->stream)) || (r = cu->cuStreamSynchronize(w->stream)))
      return cterr_set(err, "zero-filling argument '%s': %s", a->name, cuda_errstr(r));
    return 0;
  }
  /* Each argument draws from its own streams of the seed so that adding an argument does not
   * change the data of the others. Stages of WK_FILL_STAGE elements keep host memory small for
   * GB-sized buffers. */
  uint64_t base = fill_seed(seed, i);
  int es = wk_elsize(a->type);
  const int64_t chunk = a->count < WK_FILL_STAGE ? a->count : WK_FILL_STAGE;
  /* page-locked where the buffer is large: a copy from it runs at the link's speed, two to three
   * times a pageable one's */
  void *pinned = NULL;
  if (a->count > WK_FILL_STREAM && cu->cuMemAllocHost(&pinned, (size_t)chunk * es)) pinned = NULL;
  unsigned char *host = pinned ? pinned : xmalloc((size_t)chunk * es);
  int rc = 0;
  for (int64_t s = 0; s < a->count; s += chunk) {
    int64_t n = a->count - s < chunk ? a->count - s : chunk;
    fill_parallel(a, base, s, s + n, host);
    if ((r = cu->cuMemcpyHtoD(d->d + (CUdeviceptr)(s * es), host, (size_t)(n * es)))) {
      rc = cterr_set(err, "copying argument '%s' to the device: %s", a->name, cuda_errstr(r));
      break;
    }
  }
  if (pinned) cu->cuMemFreeHost(pinned);
  else free(host);
  return rc;
}
