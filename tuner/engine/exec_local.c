/* exec_local: the devices of this host behind the exec interface (see exec.h) — one compile
 * pool for all of them, one GPU worker per device (gpu.h), the configurations of each model
 * group compiled for that group's architecture.
 *
 * A configuration goes submit -> compile pool -> the group's ready queue -> the first idle
 * device of its group -> back to the caller. Each item is one configuration on one of the
 * problems set up (its slot in the GPU workers, gpu.h GPU_PROBLEMS); the ready queue holds those
 * of every problem in the order their compiles came back, so a compile shared by several
 * problems is measured on each of them in turn. exec_wait hands the next ready configuration to a
 * device before it returns the record that device just finished, so the GPU measures while
 * the caller writes (store append, fsync) and tells the strategy. A configuration that needs
 * no GPU (a compile error, an invalid geometry) comes back at once. A device whose worker
 * dies is restarted by gpu.c (the configuration it was on is recorded as a runtime_fault);
 * one that cannot be restarted at all is dropped and its configuration goes to another device
 * of the group, unrecorded. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

typedef struct item {
  struct item *next;
  int g, slot; /* its group; its problem (exec_local.probs[slot]) */
  size_t cfg;
  compile_result cr;
  record rec; /* its record, made once it is compiled (the finished one on the done list) */
  int have_rec, needs_gpu;
  int owns;       /* its submit queued a compile of its own (a module: not a sibling joining one) */
  gpu_job launch; /* its geometry and per-configuration argument values (job_record_base) */
} item;

typedef struct slot {
  gpu *gw;
  int ordinal, group, alive;
  item *it[GPU_DEPTH];    /* on the GPU, oldest first (the second waits in the worker's pipe) */
  record pend[GPU_DEPTH]; /* their records, filled by the GPU worker */
  int n;                  /* how many; 0: idle */
} slot;

/* One problem of a group: its items by stage, the best median so far and the racing reference
 * (exec.h). */
typedef struct lprob {
  int compiling, nready, ongpu, ndone;
  int cmodules; /* of the compiling, those whose compile is their own (item.owns): modules */
  double best, race;
} lprob;

typedef struct lgroup {
  item *ready_head, *ready_tail;
  lprob pp[EXEC_MAX_PROBLEMS];
  const char *arch;
  compile_result ref;   /* the reference kernel for this architecture */
  compile_result check; /* the user's check kernel (check.kernel), if any */
  compile_result init;  /* the space's init launches' program (init), if any */
} lgroup;

typedef struct exec_local {
  exec base;
  space *s;
  const run_opts *o;
  const compile_source *src;
  cpool *pool;
  int jobs, stopped;
  int probs[EXEC_MAX_PROBLEMS], nprobs; /* the problems set up, by slot */
  slot slots[EXEC_MAX_DEVICES];
  gpu *gws[EXEC_MAX_DEVICES];
  int nslots;
  lgroup lg[EXEC_MAX_GROUPS];
  item *done_head, *done_tail;
} exec_local;

static void push(item **h, item **t, item *it) {
  it->next = NULL;
  if (*t) (*t)->next = it;
  else *h = it;
  *t = it;
}
static item *pop(item **h, item **t) {
  item *it = *h;
  if (it && !(*h = it->next)) *t = NULL;
  return it;
}
static void item_free(item *it) {
  if (!it) return;
  compile_result_free(&it->cr);
  record_free(&it->rec);
  free(it);
}

/* The slot of problem prob among those set up, -1 when it is not. */
static int slot_of(const exec_local *e, int prob) {
  for (int k = 0; k < e->nprobs; k++)
    if (e->probs[k] == prob) return k;
  return -1;
}

static int in_flight(const lprob *pp) { return pp->compiling + pp->nready + pp->ongpu + pp->ndone; }

/* How far the compile pool works ahead of the devices: 2 configurations (modules, under a
 * runtime sweep) per worker, or as many as a batch (compile.h) and one more where it batches. */
static int compile_ahead(const exec_local *e) {
  int per = cpool_batch_size(e->pool);
  return (per > 1 ? per + 1 : 2) * e->jobs;
}

static int l_room(exec *x, int g, int prob) {
  exec_local *e = (exec_local *)x;
  int k = slot_of(e, prob);
  /* the compile pool works ahead of the devices: 2 configurations per worker, or as many as a
   * batch (compile.h) and one more where it batches; each problem so far ahead (where they
   * propose the same configurations, as exhaustive searches do, they share the compiles) */
  int sib = x->siblings > 1 ? x->siblings : 1, ahead = compile_ahead(e);
  int window = ahead + 4 + GPU_DEPTH * x->group[g].ndevices;
  if (e->stopped || k < 0) return e->stopped ? 0 : prob < 0 ? window : 0; /* -1: a problem with none */
  const lprob *pp = &e->lg[g].pp[k];
  if (sib == 1) return in_flight(pp) >= window ? 0 : window - in_flight(pp);
  /* a runtime sweep (x->siblings): a proposal's siblings share its compile, so the compiles
   * are counted in modules (ahead + 4 of them: submits that queued a compile of their own, not
   * those that joined one, whatever the number of siblings a proposal has), and what is past
   * its compile in configurations, as without siblings (the GPU's queue stays as short); a
   * single window of configurations left workers idle (the matmul space's 3 GROUPM values: 38
   * were ~12 modules for 16 workers: by its records' compile times NVRTC worked ~74 % of a
   * compile-bound run, 2026-12-08). The configurations compiling are bounded too, by as many
   * modules of sib each (siblings that join compiles of other problems). */
  int mroom = (ahead + 4 - pp->cmodules) * sib, croom = (ahead + 4) * sib - pp->compiling;
  int groom = window - (pp->nready + pp->ongpu + pp->ndone);
  int room = mroom < croom ? mroom : croom;
  if (groom < room) room = groom;
  return room > 0 ? room : 0;
}

static int l_inflight(exec *x, int g, int prob) {
  exec_local *e = (exec_local *)x;
  int n = 0;
  for (int k = 0; k < e->nprobs; k++)
    if (prob < 0 || e->probs[k] == prob) n += in_flight(&e->lg[g].pp[k]);
  return n;
}

static int l_submit(exec *x, int g, int prob, size_t cfg, cterr *err) {
  exec_local *e = (exec_local *)x;
  int k = slot_of(e, prob);
  if (k < 0) return cterr_set(err, "problem %s is not set up", space_problem_key(e->s, prob));
  compile_job job;
  job_hold hold;
  if (job_make(e->s, e->src, cfg, e->lg[g].arch, &job, &hold, err) != 0) {
    job_hold_free(&hold);
    return -1;
  }
  item *it = xcalloc(1, sizeof *it);
  it->g = g, it->slot = k, it->cfg = cfg;
  compile_result_init(&it->cr);
  record_init(&it->rec);
  /* the target lacks what it needs (an invalid record: job_record_base), or the space's generator
   * failed for it (a compile error with its message): no compile */
  if (hold.unfit[0] || hold.failed) {
    if (hold.failed) job_failed_result(&hold, &it->cr);
    job_hold_free(&hold);
    push(&e->lg[g].ready_head, &e->lg[g].ready_tail, it);
    e->lg[g].pp[k].nready++;
    return 0;
  }
  int rc = cpool_submit_ex(e->pool, (uint64_t)(uintptr_t)it, &job, &it->owns, err);
  job_hold_free(&hold);
  if (rc != 0) {
    item_free(it);
    return -1;
  }
  e->lg[g].pp[k].compiling++;
  e->lg[g].pp[k].cmodules += it->owns;
  return 0;
}

static void l_best(exec *x, int g, int prob, double best_ms, double race_ms) {
  exec_local *e = (exec_local *)x;
  int k = slot_of(e, prob);
  if (k < 0) return;
  e->lg[g].pp[k].best = best_ms;
  e->lg[g].pp[k].race = race_ms;
}

/* The tag of a prefetch's compile (exec_prefetch): its result is the cache's (or the pool's
 * memory's) and the loop's own submit of that key, nobody waits for it here */
#define PREFETCH_TAG (UINT64_MAX - 1) /* not JOB_REFERENCE_TAG (job.h) */

/* Take a finished compile: onto its group's ready queue (or away, once stopped). */
static void take_compile(exec_local *e, uint64_t tag, compile_result *cr) {
  if (tag == PREFETCH_TAG) {
    compile_result_free(cr);
    return;
  }
  item *it = (item *)(uintptr_t)tag;
  lgroup *l = &e->lg[it->g];
  l->pp[it->slot].compiling--;
  l->pp[it->slot].cmodules -= it->owns;
  it->cr = *cr;
  if (e->stopped) {
    item_free(it);
    return;
  }
  push(&l->ready_head, &l->ready_tail, it);
  l->pp[it->slot].nready++;
}

static int collect_compiles(exec_local *e, int timeout_ms, cterr *err) {
  for (int first = 1;; first = 0) {
    uint64_t tag;
    compile_result cr;
    if (cpool_pending(e->pool) == 0) return 0;
    int w = cpool_wait(e->pool, &tag, &cr, first ? timeout_ms : 0, err);
    if (w <= 0) return w;
    take_compile(e, tag, &cr);
  }
}

/* The GPU job of a compiled configuration of group l (its cubin stays with the item; the
 * kernel's lowered name, renamed in a batch, goes to kname, which gpu_submit copies). */
static gpu_job make_job(exec_local *e, const lgroup *l, const item *it, char *kname, size_t klen) {
  gpu_job job = it->launch;
  job.slot = it->slot;
  job.cubin = it->cr.cubin.data;
  job.cubin_len = it->cr.cubin.len;
  job.kernel = job_kernel_name(e->s, &it->cr, kname, klen);
  job.timeout_s = space_timeout(e->s);
  job.best_ms = l->pp[it->slot].best;
  job.min_samples = e->o->min_samples;
  job.min_samples_fixed = e->o->min_samples_given;
  job.max_samples = e->o->max_samples;
  job.target_rse = e->o->rse;
  job.want_energy = 0;                /* time first; energy in a pass of its own (tune.c energy_pass) */
  job.isolated_samples = 21;          /* contenders only: see gpu_job */
  job.race_ms = l->pp[it->slot].race; /* the k-th best so far (tune.c): racing, docs/MEASURE.md */
  job.race_margin = e->o->race_margin;
  job.race_early = e->o->race_early; /* before the k-th best: the best so far x this (best_ms) */
  job.race_samples = e->o->race_margin >= 0 ? e->o->race_samples : 0;
  return job;
}

/* A device of group g for job: an idle one first, else one that can queue it behind the job it
 * is on (gpu.h: GPU_DEPTH), so the worker goes from one to the next without waiting for us. */
static slot *pick_slot(exec_local *e, int g, const gpu_job *job) {
  slot *busy = NULL;
  for (int i = 0; i < e->nslots; i++) {
    slot *sl = &e->slots[i];
    if (!sl->alive || sl->group != g) continue;
    if (sl->n == 0) return sl;
    if (!busy && sl->n < GPU_DEPTH && gpu_can_queue(sl->gw, job)) busy = sl;
  }
  return busy;
}

/* Ready configurations to the devices of their group; those that need no GPU to the done list. */
static int feed(exec_local *e, cterr *err) {
  if (e->stopped) return 0;
  for (int g = 0; g < e->base.ngroups; g++) {
    lgroup *l = &e->lg[g];
    while (l->ready_head) {
      item *it = l->ready_head;
      lprob *pp = &l->pp[it->slot];
      if (!it->have_rec) {
        job_record_base(e->s, it->cfg, e->probs[it->slot], l->arch, &it->cr, &it->rec, &it->launch);
        it->needs_gpu = it->rec.status == ST_OK;
        it->have_rec = 1;
      }
      slot *sl = NULL;
      gpu_job job;
      char kname[GPU_NAME_MAX];
      if (it->needs_gpu) {
        job = make_job(e, l, it, kname, sizeof kname);
        if (!(sl = pick_slot(e, g, &job))) break; /* every device of the group is full: it waits */
      }
      pop(&l->ready_head, &l->ready_tail);
      pp->nready--;
      if (!it->needs_gpu) { /* compile error or invalid geometry: a record without the GPU */
        push(&e->done_head, &e->done_tail, it);
        pp->ndone++;
        continue;
      }
      if (gpu_submit(sl->gw, &job, err) != 0) {
        item_free(it);
        return -1;
      }
      sl->it[sl->n] = it;
      sl->pend[sl->n++] = it->rec;
      record_init(&it->rec);
      pp->ongpu++;
    }
  }
  return 0;
}

/* The oldest job of slot sl off it: its item, and its record into *rec. */
static item *slot_shift(slot *sl, record *rec) {
  item *it = sl->it[0];
  *rec = sl->pend[0];
  for (int k = 1; k < sl->n; k++) sl->it[k - 1] = sl->it[k], sl->pend[k - 1] = sl->pend[k];
  sl->n--;
  record_init(&sl->pend[sl->n]);
  return it;
}

/* The result of device i: 1 with *d filled, 0 when its worker could not be restarted (the
 * device is dropped and its configuration queued again), -1 when no device of the group is left. */
static int collect_gpu(exec_local *e, int i, exec_done *d, cterr *err) {
  slot *sl = &e->slots[i];
  lgroup *l = &e->lg[sl->group];
  if (gpu_collect(sl->gw, &sl->pend[0], err) != 0) {
    sl->alive = 0;
    e->gws[i] = NULL;
    int left = 0;
    for (int k = 0; k < e->nslots; k++) left += e->slots[k].alive && e->slots[k].group == sl->group;
    fprintf(stderr, "cutune: device %d dropped (%s); %d device%s of its model left\n", sl->ordinal, err->msg, left,
            left == 1 ? "" : "s");
    /* every job it had goes to the front, in order: the next idle device of the group takes them */
    for (int k = sl->n - 1; k >= 0; k--) {
      item *it = sl->it[k];
      record_free(&sl->pend[k]);
      l->pp[it->slot].ongpu--;
      if (!left) {
        item_free(it);
        continue;
      }
      it->have_rec = 0; /* made again, for the device that takes it */
      record_free(&it->rec);
      it->next = l->ready_head;
      l->ready_head = it;
      if (!l->ready_tail) l->ready_tail = it;
      l->pp[it->slot].nready++;
    }
    sl->n = 0;
    if (!left) return cterr_set(err, "every device of the model %s was lost", e->base.group[sl->group].info.name);
    return 0;
  }
  record rec;
  item *it = slot_shift(sl, &rec);
  lprob *pp = &l->pp[it->slot];
  pp->ongpu--;
  /* the next job of the group on this problem is a contender against this one too */
  if (record_timed(&rec) && !record_raced(&rec) && (isnan(pp->best) || rec.t_median < pp->best))
    pp->best = rec.t_median;
  d->group = sl->group;
  d->prob = e->probs[it->slot];
  d->cfg = it->cfg;
  d->rec = rec;
  item_free(it);
  return 1;
}

static int l_wait(exec *x, exec_done *d, int timeout_ms, cterr *err) {
  exec_local *e = (exec_local *)x;
  double until = timeout_ms < 0 ? INFINITY : now_seconds() + timeout_ms / 1000.0;
  for (;;) {
    if (collect_compiles(e, 0, err) < 0 || feed(e, err) != 0) return -1;
    if (e->done_head) {
      item *it = pop(&e->done_head, &e->done_tail);
      e->lg[it->g].pp[it->slot].ndone--;
      d->group = it->g, d->prob = e->probs[it->slot], d->cfg = it->cfg, d->rec = it->rec;
      record_init(&it->rec);
      item_free(it);
      return 1;
    }
    int i = gpu_wait_any(e->gws, e->nslots, 0);
    if (i >= 0) {
      int r = collect_gpu(e, i, d, err);
      if (r < 0) return -1;
      /* the next configuration goes to the device before its last record is written */
      if (r == 1 && feed(e, err) != 0) {
        record_free(&d->rec);
        return -1;
      }
      if (r == 1) return 1;
      continue;
    }
    int ongpu = 0, idle = 0; /* idle: a device with room for another job */
    for (int k = 0; k < e->nslots; k++) {
      if (!e->slots[k].alive) continue;
      ongpu += e->slots[k].n > 0;
      idle += e->slots[k].n < GPU_DEPTH;
    }
    int compiling = cpool_pending(e->pool) > 0;
    double left = until - now_seconds();
    if (!ongpu && !compiling) return 0;
    if (left <= 0) return 0;
    int left_ms = isinf(left) ? -1 : (int)(left * 1000) + 1;
    if (!ongpu) {
      if (collect_compiles(e, left_ms, err) < 0) return -1;
      continue;
    }
    /* devices busy: wait for them; look at the compile pool every few ms while it works, and
     * every ms while a device is idle for want of a compiled configuration */
    int slice = compiling ? (idle ? 1 : 5) : left_ms;
    if (left_ms >= 0 && (slice < 0 || slice > left_ms)) slice = left_ms;
    gpu_wait_any(e->gws, e->nslots, slice);
  }
}

static void drop_compile(void *ctx, uint64_t tag) {
  exec_local *e = ctx;
  if (tag == PREFETCH_TAG) return;
  item *it = (item *)(uintptr_t)tag;
  e->lg[it->g].pp[it->slot].compiling--;
  e->lg[it->g].pp[it->slot].cmodules -= it->owns;
  item_free(it);
}

/* Stopped (out of time, interrupted): compiles still queued or running are given up at once,
 * not waited for (a deep queue of slow compiles would overrun --time by minutes); what is on a
 * device finishes and is recorded. */
static void l_stop(exec *x) {
  exec_local *e = (exec_local *)x;
  e->stopped = 1;
  cpool_cancel(e->pool, drop_compile, e);
  for (int g = 0; g < x->ngroups; g++) {
    lgroup *l = &e->lg[g];
    item *it;
    while ((it = pop(&l->ready_head, &l->ready_tail))) l->pp[it->slot].nready--, item_free(it);
  }
}

static void l_drain(exec *x) {
  exec_local *e = (exec_local *)x;
  l_stop(x);
  for (int i = 0; i < e->nslots; i++) { /* let busy workers finish, so the next problem finds them idle */
    slot *sl = &e->slots[i];
    while (sl->n > 0) {
      cterr e2;
      if (gpu_pending(sl->gw) && gpu_collect(sl->gw, &sl->pend[0], &e2) != 0) {
        for (int k = 0; k < sl->n; k++)
          e->lg[sl->group].pp[sl->it[k]->slot].ongpu--, record_free(&sl->pend[k]), item_free(sl->it[k]);
        sl->n = 0;
        break;
      }
      record rec;
      item *it = slot_shift(sl, &rec);
      e->lg[sl->group].pp[it->slot].ongpu--;
      item_free(it);
      record_free(&rec);
    }
  }
  item *it;
  while ((it = pop(&e->done_head, &e->done_tail))) {
    e->lg[it->g].pp[it->slot].ndone--;
    item_free(it);
  }
  while (cpool_pending(e->pool) > 0) {
    uint64_t tag;
    compile_result cr;
    cterr e2;
    if (cpool_wait(e->pool, &tag, &cr, -1, &e2) != 1) break;
    take_compile(e, tag, &cr);
  }
  e->stopped = 0;
}

/* Every problem in a slot of its own on every device (slot 0 first: it drops what the workers
 * held before). */
static int l_problems(exec *x, const int *probs, int n, cterr *err) {
  exec_local *e = (exec_local *)x;
  space *s = e->s;
  if (n < 1 || n > EXEC_MAX_PROBLEMS) return cterr_set(err, "%d problems at once (1 to %d)", n, EXEC_MAX_PROBLEMS);
  for (int g = 0; g < x->ngroups; g++)
    if (l_inflight(x, g, -1))
      return cterr_set(err, "a problem setup with %d configurations in flight", l_inflight(x, g, -1));
  e->stopped = 0;
  e->nprobs = 0;
  for (int g = 0; g < x->ngroups; g++)
    for (int k = 0; k < EXEC_MAX_PROBLEMS; k++) e->lg[g].pp[k] = (lprob){.best = NAN, .race = NAN};
  for (int k = 0; k < n; k++) {
    int prob = probs[k];
    for (int g = 0; g < x->ngroups; g++) {
      gpu_problem gp;
      if (job_problem(s, prob, e->o->seed, &e->lg[g].ref, &gp, err) != 0) return -1;
      job_problem_check(s, &e->lg[g].check, &gp);
      job_problem_init(s, prob, &e->lg[g].init, &gp);
      gpu *gs[EXEC_MAX_DEVICES];
      int m = 0;
      for (int i = 0; i < e->nslots; i++)
        if (e->slots[i].alive && e->slots[i].group == g) gs[m++] = e->slots[i].gw;
      if (gpu_setup_all(gs, m, k, &gp, err) != 0) return cterr_wrap(err, "problem %s", space_problem_key(s, prob));
      int deaths = 0;
      for (int i = 0; i < m; i++) deaths += gpu_setup_deaths(gs[i]);
      if (!e->o->quiet && deaths > 0)
        fprintf(stderr, "problem %s: %d GPU worker%s died in the setup and %s replaced\n", space_problem_key(s, prob),
                deaths, deaths == 1 ? "" : "s", deaths == 1 ? "was" : "were");
    }
    e->probs[e->nprobs++] = prob;
  }
  return 0;
}

int exec_problems_fit(space *s, const int *probs, int n, int64_t mem_bytes, double *need) {
  *need = 0;
  for (int k = 0; k < n; k++) {
    argspec args[MAX_ARGS];
    int nargs = 0;
    cterr e;
    if (space_args(s, probs[k], args, &nargs, &e) != 0) return 0; /* the setup will say why */
    for (int i = 0; i < nargs;
         i++) /* as the worker allocates them: the buffer, its reference copy, its initial contents */
      if (args[i].kind != ARG_SCALAR)
        *need += (double)args[i].count * elemtype_size(args[i].type) *
                 (args[i].kind == ARG_INPUT    ? 1
                  : args[i].kind == ARG_OUTPUT ? 2
                                               : 3);
  }
  return mem_bytes <= 0 || *need <= EXEC_OVERLAP_MEM * (double)mem_bytes;
}

static int l_remeasure(exec *x, int g, int prob, size_t cfg, int energy_ms, exec_done *d, cterr *err) {
  exec_local *e = (exec_local *)x;
  lgroup *l = &e->lg[g];
  int k = slot_of(e, prob);
  if (k < 0) return cterr_set(err, "energy pass: problem %s is not set up", space_problem_key(e->s, prob));
  slot *sl = NULL;
  for (int i = 0; i < e->nslots && !sl; i++)
    if (e->slots[i].alive && e->slots[i].group == g && !e->slots[i].n) sl = &e->slots[i];
  if (!sl) return cterr_set(err, "no idle device of %s for the energy pass", x->group[g].info.name);
  compile_job job;
  job_hold hold;
  if (job_make(e->s, e->src, cfg, l->arch, &job, &hold, err) != 0) return -1;
  if (hold.failed) { /* measured before, so its generator ran then: it changed its mind */
    cterr_set(err, "energy pass: %s", hold.failed);
    job_hold_free(&hold);
    return -1;
  }
  int sr = cpool_submit(e->pool, cfg, &job, err);
  job_hold_free(&hold);
  uint64_t tag;
  compile_result cr;
  int got = sr == 0 ? cpool_wait(e->pool, &tag, &cr, -1, err) : -1;
  while (got == 1 && tag == PREFETCH_TAG) { /* a prefetch's, still out: not this one */
    compile_result_free(&cr);
    got = cpool_wait(e->pool, &tag, &cr, -1, err);
  }
  if (got != 1) return -1;
  record rec;
  gpu_job gj = {0};
  job_record_base(e->s, cfg, prob, l->arch, &cr, &rec, &gj);
  if (rec.status != ST_OK) { /* not measurable (as in the time pass): nothing to remeasure */
    compile_result_free(&cr);
    record_free(&rec);
    return 0;
  }
  char kname[GPU_NAME_MAX];
  gj.slot = k;
  gj.cubin = cr.cubin.data, gj.cubin_len = cr.cubin.len;
  gj.kernel = job_kernel_name(e->s, &cr, kname, sizeof kname);
  gj.timeout_s = space_timeout(e->s) + 3.0 * energy_ms / 1000.0;
  gj.best_ms = NAN; /* no racing: these are all contenders (race_samples 0) */
  gj.min_samples = e->o->min_samples, gj.max_samples = e->o->max_samples, gj.target_rse = e->o->rse;
  gj.min_samples_fixed = e->o->min_samples_given;
  gj.want_energy = energy_ms;
  int gr = gpu_submit(sl->gw, &gj, err) != 0 ? -1 : gpu_collect(sl->gw, &rec, err);
  compile_result_free(&cr);
  if (gr != 0) {
    record_free(&rec);
    return -1;
  }
  d->group = g, d->prob = prob, d->cfg = cfg, d->rec = rec;
  return 1;
}

static double l_copy_gbps(exec *x, int g, int prob) {
  exec_local *e = (exec_local *)x;
  int k = slot_of(e, prob);
  for (int i = 0; i < e->nslots && k >= 0; i++)
    if (e->slots[i].alive && e->slots[i].group == g) return gpu_copy_gbps(e->slots[i].gw, k);
  return x->group[g].info.copy_gbps;
}

static int l_compile_stats(exec *x, cpool_stats *out) {
  cpool_get_stats(((exec_local *)x)->pool, out);
  return 1;
}

static double l_sgemm_ms(exec *x, int g, int prob, const char **why) {
  exec_local *e = (exec_local *)x;
  int k = slot_of(e, prob);
  *why = "";
  for (int i = 0; i < e->nslots && k >= 0; i++)
    if (e->slots[i].alive && e->slots[i].group == g) return gpu_sgemm_ms(e->slots[i].gw, k, why);
  return NAN;
}

static void l_free(exec *x) {
  exec_local *e = (exec_local *)x;
  if (e->pool) l_drain(x);
  cpool_free(e->pool);
  for (int i = 0; i < e->nslots; i++) gpu_stop(e->slots[i].gw);
  for (int g = 0; g < x->ngroups; g++)
    compile_result_free(&e->lg[g].ref), compile_result_free(&e->lg[g].check), compile_result_free(&e->lg[g].init);
  free(e);
}

static const exec_ops local_ops = {l_problems, l_room,      l_submit,    l_best,     l_wait, l_inflight,     l_stop,
                                   l_drain,    l_remeasure, l_copy_gbps, l_sgemm_ms, l_free, l_compile_stats};

int exec_local_new(space *s, const run_opts *o, const char *self_exe, const int *ordinals, int n,
                   const compile_source *src, const exec_prefetch *pre, exec **out, cterr *err) {
  *out = NULL;
  if (n < 1 || n > EXEC_MAX_DEVICES) return cterr_set(err, "%d devices (1 to %d)", n, EXEC_MAX_DEVICES);
  exec_local *e = xcalloc(1, sizeof *e);
  e->base.ops = &local_ops;
  e->s = s, e->o = o, e->src = src;
  for (int g = 0; g < EXEC_MAX_GROUPS; g++)
    compile_result_init(&e->lg[g].ref), compile_result_init(&e->lg[g].check), compile_result_init(&e->lg[g].init);
  /* The workers' start in two halves (gpu.h): the devices' identity, their groups and the
   * references compiled for them while the workers finish starting (their contexts). */
  gpu *started[EXEC_MAX_DEVICES];
  if (gpu_start_all_begin(started, self_exe, ordinals, n, err) != 0) goto fail;
  for (int i = 0; i < n; i++) {
    slot *sl = &e->slots[e->nslots];
    for (int k = 0; k < GPU_DEPTH; k++) record_init(&sl->pend[k]);
    sl->gw = started[i];
    e->gws[e->nslots++] = sl->gw;
    sl->ordinal = ordinals[i], sl->alive = 1;
  }
  for (int i = 0; i < n; i++) {
    slot *sl = &e->slots[i];
    const gpu_device_info *in = gpu_info(sl->gw);
    int g = 0;
    while (g < e->base.ngroups && strcmp(e->base.group[g].info.name, in->name)) g++;
    if (g == e->base.ngroups) {
      if (g == EXEC_MAX_GROUPS) {
        cterr_set(err, "more than %d GPU models in one run", EXEC_MAX_GROUPS);
        goto fail;
      }
      e->base.group[g].info = *in;
      e->base.ngroups++;
      e->lg[g].arch = o->arch ? o->arch : e->base.group[g].info.arch;
      if (o->arch && !job_arch_matches(o->arch, in->arch)) {
        cterr_set(err, "--arch %s does not match the device (%s is %s); leave --arch out to tune on it", o->arch,
                  in->name, in->arch);
        goto fail;
      }
    }
    sl->group = g;
    e->base.group[g].ndevices++;
  }
  if (job_open_pool(o, self_exe, &e->pool, &e->jobs, err) != 0) goto fail;
  trace_mark("compile pool open (%d workers)", e->jobs);
  for (int g = 0; g < e->base.ngroups; g++)
    if (job_compile_reference(s, e->lg[g].arch, e->pool, &e->lg[g].ref, err) != 0 ||
        job_compile_check(s, e->lg[g].arch, e->pool, &e->lg[g].check, err) != 0 ||
        job_compile_init(s, e->lg[g].arch, e->pool, &e->lg[g].init, err) != 0)
      goto fail;
  trace_mark("reference compiled");
  /* the first configurations the search will ask for, compiled while the workers finish their
   * start (one group: a second model's architecture would want its own) */
  size_t npre = 0, pcfg[EXEC_PREFETCH_MAX], want = (size_t)compile_ahead(e) + 4; /* l_room's modules */
  if (want > EXEC_PREFETCH_MAX) want = EXEC_PREFETCH_MAX;
  size_t nlist =
      pre && pre->list && e->base.ngroups == 1 ? pre->list(pre->ctx, e->base.group[0].info.name, pcfg, want) : 0;
  for (size_t i = 0; i < nlist; i++) {
    compile_job job;
    job_hold hold;
    cterr e2;
    if (job_make(e->s, e->src, pcfg[i], e->lg[0].arch, &job, &hold, &e2) != 0) {
      job_hold_free(&hold);
      continue;
    }
    if (!hold.unfit[0] && !hold.failed && cpool_submit(e->pool, PREFETCH_TAG, &job, &e2) == 0) npre++;
    job_hold_free(&hold);
  }
  if (npre) {
    cterr e2;
    if (cpool_start(e->pool, &e2) == 0) trace_mark("prefetch: %zu configurations handed to the compile pool", npre);
  }
  if (gpu_start_all_end(e->gws, e->nslots, err) != 0) goto fail;
  for (int i = e->nslots - 1; i >= 0; i--) /* the groups' info whole (copy_gbps), from their first device */
    e->base.group[e->slots[i].group].info = *gpu_info(e->slots[i].gw);
  *out = &e->base;
  return 0;
fail:
  l_free(&e->base);
  return -1;
}

int exec_parse_devices(const char *spec, int ndevices_here, int *ordinals, int max, int *n, cterr *err) {
  *n = 0;
  if (!strcmp(spec, "all")) {
    for (int i = 0; i < ndevices_here && *n < max; i++) ordinals[(*n)++] = i;
    return *n ? 0 : cterr_set(err, "--devices all: this machine has no CUDA device");
  }
  const char *p = spec;
  while (*p) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 0 || (*end && *end != ','))
      return cterr_set(err, "--devices needs 'all' or ordinals separated by commas (0,2,3), got '%s'", spec);
    if (v >= ndevices_here)
      return cterr_set(err, "--devices %s: device %ld does not exist (this machine has %d)", spec, v, ndevices_here);
    for (int k = 0; k < *n; k++)
      if (ordinals[k] == v) return cterr_set(err, "--devices %s: device %ld is named twice", spec, v);
    if (*n == max) return cterr_set(err, "--devices %s: at most %d devices", spec, max);
    ordinals[(*n)++] = (int)v;
    p = *end ? end + 1 : end;
  }
  return *n ? 0 : cterr_set(err, "--devices needs 'all' or ordinals separated by commas (0,2,3), got '%s'", spec);
}
