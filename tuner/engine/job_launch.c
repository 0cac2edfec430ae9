/* job_launch: how a configuration is launched on a problem — the launch the GPU job gets
 * (job_launch_eval: the space's geometry, argument, tensor map and launch functions), its digest
 * (the records' launch hash, record.h) and a run's table of those digests, each computed the
 * first time a lookup needs it (job_lhashes). See job.h. */
#include <stdlib.h>
#include <string.h>

#include "job.h"

int job_launch_eval(space *s, size_t cfg, int prob, gpu_job *gj, cterr *err) {
  gj->nargvals = gj->ntmaps = gj->ntypes = gj->nlaunches = 0;
  if (space_geometry(s, cfg, prob, &gj->geom, err) != 0 ||
      space_config_args(s, cfg, prob, gj->argvals, &gj->nargvals, err) != 0 ||
      space_config_tmaps(s, cfg, prob, gj->tmaps, &gj->ntmaps, err) != 0 ||
      (space_ref_per_config(s) && space_ref_config(s, cfg, prob, &gj->ref_geom, &gj->ref_key, err) != 0))
    return -1;
  gj->ntypes = space_config_types(s, cfg, prob, gj->types);
  if (!space_nlaunches(s)) return 0;
  int m = space_launches(s, cfg, prob, gj->launches, err); /* kernel names: job_launch_names */
  if (m < 0) return -1;
  gj->nlaunches = m;
  return 0;
}

/* Every value goes in as 8 little-endian bytes (a double as its bits), field by field: no
 * struct padding reaches the digest, and it is the same on every host. */
static void put(sha256_ctx *c, int64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)((uint64_t)v >> (8 * i));
  sha256_update(c, b, sizeof b);
}
static void put_real(sha256_ctx *c, double d) {
  int64_t v;
  memcpy(&v, &d, sizeof v);
  put(c, v);
}
static void put_geom(sha256_ctx *c, const launch_geom *g) {
  for (int i = 0; i < 3; i++) put(c, g->grid[i]);
  for (int i = 0; i < 3; i++) put(c, g->block[i]);
  put(c, g->dyn_smem);
}

void job_launch_digest(space *s, int prob, const gpu_job *gj, char out[33]) {
  sha256_ctx c;
  uint8_t dg[32];
  sha256_init(&c);
  sha256_update(&c, "launch 1", 9);
  /* the problem's arguments as the kernel gets them: their order and kinds, a scalar's value, a
   * buffer's element type and count (what fills a buffer and how it is compared are the check
   * hash's) */
  argspec args[MAX_ARGS];
  int nargs = 0;
  cterr e;
  if (space_args(s, prob, args, &nargs, &e) != 0) nargs = 0;
  put(&c, nargs);
  for (int i = 0; i < nargs; i++) {
    const argspec *a = &args[i];
    put(&c, a->kind), put(&c, a->type), put(&c, a->typed);
    if (a->kind == ARG_SCALAR) put(&c, a->ival), put_real(&c, a->fval);
    else if (a->kind != ARG_TENSORMAP) put(&c, a->count);
  }
  put_geom(&c, &gj->geom);
  put(&c, gj->nargvals);
  for (int i = 0; i < gj->nargvals; i++) { /* a scalar's value (ival, fval), or a buffer's count (ival) */
    const argval *v = &gj->argvals[i];
    put(&c, v->index), put(&c, v->ival);
    if (v->index >= 0 && v->index < nargs && args[v->index].kind == ARG_SCALAR) put_real(&c, v->fval);
  }
  put(&c, gj->ntypes);
  for (int i = 0; i < gj->ntypes; i++) put(&c, gj->types[i].index), put(&c, gj->types[i].type);
  put(&c, gj->ntmaps);
  for (int i = 0; i < gj->ntmaps; i++) {
    const tmapspec *t = &gj->tmaps[i];
    put(&c, t->arg), put(&c, t->buffer), put(&c, t->type), put(&c, t->rank), put(&c, t->swizzle);
    put(&c, t->optional);
    for (int k = 0; k < t->rank && k < TMAP_MAX_RANK; k++) put(&c, t->dims[k]), put(&c, t->box[k]);
    for (int k = 0; k + 1 < t->rank && k < TMAP_MAX_RANK - 1; k++) put(&c, t->strides[k]);
  }
  put(&c, space_ref_per_config(s));
  if (space_ref_per_config(s)) put_geom(&c, &gj->ref_geom);
  put(&c, gj->nlaunches);
  for (int k = 0; k < gj->nlaunches; k++) {
    const launch_step *l = &gj->launches[k];
    const char *kernel = space_launch_kernel(s, k); /* as the space names it: the lowered name is the program's */
    put(&c, l->program);
    sha256_update(&c, kernel ? kernel : "", kernel ? strlen(kernel) + 1 : 1);
    put(&c, l->nargs);
    for (int a = 0; a < l->nargs && a < MAX_ARGS; a++) put(&c, l->arg[a]);
    put_geom(&c, &l->geom);
  }
  sha256_final(&c, dg);
  hex_encode(dg, 16, out);
}

static void limit_digest(const char *message, char out[33]) {
  /* the message less its leading "file:line: ": the space's path as given (it depends on the
   * working directory) and a line moved by an edit elsewhere in the file change no limit */
  const char *m = message ? message : "";
  for (const char *p = strchr(m, ':'); p; p = strchr(p + 1, ':')) {
    const char *q = p + 1;
    while (*q >= '0' && *q <= '9') q++;
    if (q > p + 1 && q[0] == ':' && q[1] == ' ') {
      m = q + 2;
      break;
    }
  }
  sha256_ctx c;
  uint8_t dg[32];
  sha256_init(&c);
  sha256_update(&c, "limit 1", 8);
  sha256_update(&c, m, strlen(m) + 1);
  sha256_final(&c, dg);
  hex_encode(dg, 16, out);
}

int job_launch_hash(space *s, size_t cfg, int prob, gpu_job *gj, char out[33], cterr *err) {
  gpu_job own;
  if (!gj) gj = &own;
  memset(gj, 0, sizeof *gj);
  cterr e;
  out[0] = 0;
  if (job_launch_eval(s, cfg, prob, gj, &e) == 0) {
    job_launch_digest(s, prob, gj, out);
    return 0;
  }
  if (err) *err = e;
  if (e.code == CTERR_SPACE) return -1;
  limit_digest(e.msg, out);
  return 1;
}

/* ---- a run's table: (configuration, problem) -> launch hash, open addressing ---- */

typedef struct lh_entry {
  size_t cfg;
  int prob;
  int state; /* 0 empty, 1 the hash, 2 the space's code failed */
  char h[33];
} lh_entry;

struct job_lhashes {
  space *s;
  lh_entry *slot;
  size_t cap, n;
};

job_lhashes *job_lhashes_new(space *s) {
  job_lhashes *t = xcalloc(1, sizeof *t);
  t->s = s;
  return t;
}

static size_t lh_index(const job_lhashes *t, size_t cfg, int prob) {
  uint64_t h = ((uint64_t)cfg * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)(unsigned)prob * 0xc2b2ae3d27d4eb4full);
  h ^= h >> 31;
  size_t i = (size_t)h & (t->cap - 1);
  while (t->slot[i].state && !(t->slot[i].cfg == cfg && t->slot[i].prob == prob)) i = (i + 1) & (t->cap - 1);
  return i;
}

const char *job_lhash(job_lhashes *t, size_t cfg, int prob) {
  if (!t) return NULL;
  if (2 * (t->n + 1) > t->cap) { /* grow: at most half full */
    lh_entry *old = t->slot;
    size_t ocap = t->cap;
    t->cap = ocap ? 2 * ocap : 256;
    t->slot = xcalloc(t->cap, sizeof *t->slot);
    for (size_t i = 0; i < ocap; i++)
      if (old[i].state) t->slot[lh_index(t, old[i].cfg, old[i].prob)] = old[i];
    free(old);
  }
  lh_entry *e = &t->slot[lh_index(t, cfg, prob)];
  if (!e->state) {
    e->cfg = cfg, e->prob = prob;
    e->state = job_launch_hash(t->s, cfg, prob, NULL, e->h, NULL) >= 0 ? 1 : 2;
    t->n++;
  }
  return e->state == 1 ? e->h : NULL;
}

void job_lhashes_free(job_lhashes *t) {
  if (!t) return;
  free(t->slot), free(t);
}
