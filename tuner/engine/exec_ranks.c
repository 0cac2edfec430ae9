/* exec_ranks: a run started as several ranks (mpirun, srun) behind the exec interface
 * (exec.h), over tuner/dist. Rank 0 is the coordinator: it runs tune.c's loop (strategies,
 * stores, progress) and this file's exec, which hands configurations to the other ranks. Every
 * other rank serves: it runs an exec_local over its host's devices (its own compile pool and
 * cache, its own GPU workers), takes tasks from rank 0 and sends each record back as JSON;
 * rank 0 writes and fsyncs it, so the results exist only there.
 *
 * Messages (tags below): a serving rank says HELLO with its model groups and how many
 * configurations each takes at once (per problem); rank 0 sends PROBLEM (the problems to hold
 * at once, exec.h), the rank sets them up and answers READY; then TASKs out (each names its
 * problem), RESULTs back, a BEAT every second from a rank with nothing else to
 * say; QUIT at the end. Rank 0 joins the ranks' groups by model name, so a cluster of mixed
 * GPUs tunes each model separately.
 *
 * A rank that falls silent for --rank-timeout seconds while it holds configurations is taken
 * as lost: they go to other ranks of the same model (queued until one has room), and
 * whatever it sends later is ignored, so nothing is recorded twice. When no rank of a model
 * is left, the run ends with an error (every record so far is in the store: the same command
 * resumes). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "exec.h"
#include "store/record_json.h"
#include "store/store.h"

enum { TAG_HELLO = 1, TAG_FAIL, TAG_PROBLEM, TAG_READY, TAG_TASK, TAG_RESULT, TAG_BEAT, TAG_QUIT };

typedef struct msg_hello {
  int32_t ngroups;
  int32_t room[EXEC_MAX_GROUPS];
  int32_t ndevices[EXEC_MAX_GROUPS];
  gpu_device_info info[EXEC_MAX_GROUPS];
} msg_hello;
typedef struct msg_problems { /* the problems to set up, and which setup this is */
  int32_t gen, n;
  int32_t probs[EXEC_MAX_PROBLEMS];
} msg_problems;
typedef struct msg_ready {
  int32_t gen, ok;
  double copy_gbps[EXEC_MAX_GROUPS][EXEC_MAX_PROBLEMS];
  char data[EXEC_MAX_PROBLEMS][33]; /* each problem's data digest as the rank made it (space_data_digest) */
  char message[CTERR_MAX];
} msg_ready;
typedef struct msg_task {
  int32_t prob, lg;
  uint64_t cfg;
  double best_ms, race_ms;
  int32_t energy_ms; /* > 0: the energy pass (exec remeasure) with this window, not a tuning task */
} msg_task;
typedef struct msg_result { /* followed by the record as JSON */
  int32_t prob, lg;
  uint64_t cfg;
} msg_result;

#define START_TIMEOUT_S 600.0 /* a rank's GPU workers, compile pool and reference compiles */
#define SETUP_TIMEOUT_S 900.0 /* a problem's setup on every device of a rank */

/* ---- rank 0: the other ranks as one exec ---- */

typedef struct rrank {
  int alive, ready_gen, ngroups;                /* ready_gen: the setup it has done (exec_ranks.gen) */
  int g_of[EXEC_MAX_GROUPS];                    /* the rank's group lg is rank 0's group g_of[lg] */
  int room[EXEC_MAX_GROUPS];                    /* per problem */
  int used[EXEC_MAX_GROUPS][EXEC_MAX_PROBLEMS]; /* by slot */
  double copy[EXEC_MAX_GROUPS][EXEC_MAX_PROBLEMS];
  double heard; /* when it last said anything */
} rrank;

typedef struct task {
  int g, rank, lg; /* rank -1: queued, waiting for room */
  int slot;        /* its problem: exec_ranks.probs[slot] */
  size_t cfg;
  int energy_ms; /* > 0: a remeasure for the energy pass */
} task;

typedef struct exec_ranks {
  exec base;
  dist *d;
  int n; /* ranks, rank 0 included */
  rrank *r;
  task *t;
  int nt, cap;
  int probs[EXEC_MAX_PROBLEMS], nprobs, gen; /* the problems set up, by slot; the setup's number */
  double best[EXEC_MAX_GROUPS][EXEC_MAX_PROBLEMS], race[EXEC_MAX_GROUPS][EXEC_MAX_PROBLEMS];
  int starved[EXEC_MAX_GROUPS]; /* asked for room while no rank of the group was left */
  double rank_timeout;
  dbuf buf;
  const space *s; /* rank 0's: the data digests a rank's READY must match */
} exec_ranks;

static int slot_of(const exec_ranks *e, int prob) {
  for (int k = 0; k < e->nprobs; k++)
    if (e->probs[k] == prob) return k;
  return -1;
}

static int rank_lg(const rrank *rr, int g) {
  for (int lg = 0; lg < rr->ngroups; lg++)
    if (rr->g_of[lg] == g) return lg;
  return -1;
}

static void lose(exec_ranks *e, int r, const char *why) {
  rrank *rr = &e->r[r];
  if (!rr->alive) return;
  rr->alive = 0;
  int k = 0;
  for (int i = 0; i < e->nt; i++)
    if (e->t[i].rank == r) e->t[i].rank = -1, k++;
  memset(rr->used, 0, sizeof rr->used);
  fprintf(stderr, "cutune: rank %d lost (%s); its %d configuration%s in flight go%s to other ranks\n", r, why, k,
          k == 1 ? "" : "s", k == 1 ? "es" : "");
}

static int r_room(exec *x, int g, int prob) {
  exec_ranks *e = (exec_ranks *)x;
  int room = 0, any = 0, k = slot_of(e, prob);
  if (k < 0) return 0;
  for (int r = 1; r < e->n; r++) {
    rrank *rr = &e->r[r];
    int lg = rank_lg(rr, g);
    any |= rr->alive && lg >= 0;
    if (rr->alive && rr->ready_gen == e->gen && lg >= 0) room += rr->room[lg] - rr->used[lg][k];
  }
  if (!any) e->starved[g] = 1; /* the loop wants work done that nobody can do: wait says so */
  for (int i = 0; i < e->nt; i++) room -= e->t[i].g == g && e->t[i].slot == k && e->t[i].rank < 0;
  return room > 0 ? room : 0;
}

static int r_inflight(exec *x, int g, int prob) {
  exec_ranks *e = (exec_ranks *)x;
  int k = 0;
  for (int i = 0; i < e->nt; i++) k += e->t[i].g == g && (prob < 0 || e->probs[e->t[i].slot] == prob);
  return k;
}

/* Queued tasks to the ranks of their model with the most room. */
static void assign(exec_ranks *e) {
  for (int i = 0; i < e->nt; i++) {
    task *t = &e->t[i];
    if (t->rank >= 0) continue;
    int best = -1, best_free = 0;
    for (int r = 1; r < e->n; r++) {
      rrank *rr = &e->r[r];
      int lg = rank_lg(rr, t->g);
      if (!rr->alive || rr->ready_gen != e->gen || lg < 0) continue;
      int f = rr->room[lg] - rr->used[lg][t->slot];
      if (f > best_free) best = r, best_free = f;
    }
    if (best < 0) continue;
    rrank *rr = &e->r[best];
    msg_task m = {.prob = e->probs[t->slot],
                  .lg = rank_lg(rr, t->g),
                  .cfg = t->cfg,
                  .best_ms = e->best[t->g][t->slot],
                  .race_ms = e->race[t->g][t->slot],
                  .energy_ms = t->energy_ms};
    cterr err;
    if (dist_send(e->d, best, TAG_TASK, &m, sizeof m, &err) != 0) {
      lose(e, best, err.msg);
      i = -1; /* its tasks are queued again: start over */
      continue;
    }
    t->rank = best, t->lg = m.lg;
    rr->used[m.lg][t->slot]++;
  }
}

/* A task of group g on problem prob (one set up), queued: energy_ms > 0 marks a remeasure. */
static int queue_task(exec_ranks *e, int g, int prob, size_t cfg, int energy_ms, cterr *err) {
  int k = slot_of(e, prob);
  if (k < 0) return cterr_set(err, "problem %d is not set up on the ranks", prob);
  if (e->nt == e->cap) {
    e->cap = e->cap ? 2 * e->cap : 64;
    e->t = xrealloc(e->t, (size_t)e->cap * sizeof *e->t);
  }
  e->t[e->nt++] = (task){.g = g, .rank = -1, .lg = -1, .slot = k, .cfg = cfg, .energy_ms = energy_ms};
  return 0;
}

static int r_submit(exec *x, int g, int prob, size_t cfg, cterr *err) {
  exec_ranks *e = (exec_ranks *)x;
  if (queue_task(e, g, prob, cfg, 0, err) != 0) return -1;
  assign(e);
  return 0;
}

static void r_best(exec *x, int g, int prob, double best_ms, double race_ms) {
  exec_ranks *e = (exec_ranks *)x;
  int k = slot_of(e, prob);
  if (k < 0) return;
  e->best[g][k] = best_ms;
  e->race[g][k] = race_ms;
}

/* One message in, handled. 1 when it was a result (d filled), 0 otherwise, -1 on error. */
static int take(exec_ranks *e, exec_done *d, int timeout_ms, cterr *err) {
  int from, tag;
  int got = dist_recv(e->d, &from, &tag, &e->buf, timeout_ms, err);
  if (got <= 0) return got;
  if (from <= 0 || from >= e->n || !e->r[from].alive) return 0; /* lost ranks are not heard again */
  rrank *rr = &e->r[from];
  rr->heard = now_seconds();
  if (tag == TAG_FAIL) {
    lose(e, from, e->buf.data);
  } else if (tag == TAG_READY && e->buf.len == sizeof(msg_ready)) {
    msg_ready m;
    memcpy(&m, e->buf.data, sizeof m);
    m.message[sizeof m.message - 1] = 0;
    if (m.gen != e->gen) return 0;
    if (!m.ok) {
      lose(e, from, m.message);
      return 0;
    }
    /* every rank loads the space and makes the data itself (its files, its values functions):
     * data that differs from rank 0's would measure another problem under the same records */
    for (int k = 0; k < e->nprobs; k++) {
      m.data[k][32] = 0;
      const char *mine = space_data_digest(e->s, e->probs[k]);
      if (strcmp(mine, m.data[k])) {
        char why[CTERR_MAX];
        snprintf(why, sizeof why,
                 "its data of problem %s differs from rank 0's (digest %s, rank 0 %s): each rank reads the space's "
                 "data files and runs its values functions itself, and they must give the same bytes",
                 space_problem_key(e->s, e->probs[k]), m.data[k][0] ? m.data[k] : "none", mine[0] ? mine : "none");
        lose(e, from, why);
        return 0;
      }
    }
    rr->ready_gen = m.gen;
    memcpy(rr->copy, m.copy_gbps, sizeof rr->copy);
  } else if (tag == TAG_RESULT && e->buf.len >= sizeof(msg_result)) {
    msg_result m;
    memcpy(&m, e->buf.data, sizeof m);
    int k = slot_of(e, m.prob);
    if (k < 0 || m.lg < 0 || m.lg >= rr->ngroups) return 0;
    int g = rr->g_of[m.lg];
    for (int i = 0; i < e->nt; i++) {
      task *t = &e->t[i];
      if (t->g != g || t->slot != k || t->cfg != m.cfg || t->rank != from) continue;
      if (e->buf.len == sizeof m) { /* no record: a remeasure with nothing to measure */
        rr->used[m.lg][k]--;
        e->t[i] = e->t[--e->nt];
        return 0;
      }
      record_init(&d->rec);
      if (record_from_json_n(e->buf.data + sizeof m, e->buf.len - sizeof m, &d->rec, err) != 0)
        return cterr_wrap(err, "a record from rank %d", from);
      d->group = g, d->prob = m.prob, d->cfg = t->cfg;
      rr->used[m.lg][k]--;
      e->t[i] = e->t[--e->nt];
      return 1;
    }
  }
  return 0;
}

/* Ranks that hold configurations and said nothing for rank_timeout seconds are lost. */
static void check_silence(exec_ranks *e) {
  double now = now_seconds();
  for (int r = 1; r < e->n; r++) {
    rrank *rr = &e->r[r];
    int holds = 0;
    for (int lg = 0; lg < rr->ngroups; lg++)
      for (int k = 0; k < EXEC_MAX_PROBLEMS; k++) holds += rr->used[lg][k];
    if (rr->alive && holds && now - rr->heard > e->rank_timeout) {
      char why[96];
      snprintf(why, sizeof why, "silent for %.0f s", now - rr->heard);
      lose(e, r, why);
    }
  }
}

static int r_wait(exec *x, exec_done *d, int timeout_ms, cterr *err) {
  exec_ranks *e = (exec_ranks *)x;
  double until = timeout_ms < 0 ? INFINITY : now_seconds() + timeout_ms / 1000.0;
  for (;;) {
    assign(e);
    for (int g = 0; g < x->ngroups; g++) {
      int any = 0, queued = e->starved[g];
      for (int i = 0; i < e->nt && !queued; i++) queued = e->t[i].g == g;
      for (int r = 1; r < e->n; r++) any |= e->r[r].alive && rank_lg(&e->r[r], g) >= 0;
      if (queued && !any) return cterr_set(err, "every rank with a %s was lost", x->group[g].info.name);
    }
    double left = until - now_seconds();
    int slice = left <= 0 ? 0 : left < 0.05 ? (int)(left * 1000) + 1 : 50;
    int got = take(e, d, slice, err);
    if (got != 0) return got;
    check_silence(e);
    if (now_seconds() >= until) return 0;
  }
}

static int r_problems(exec *x, const int *probs, int n, cterr *err) {
  exec_ranks *e = (exec_ranks *)x;
  if (n < 1 || n > EXEC_MAX_PROBLEMS) return cterr_set(err, "%d problems at once (1 to %d)", n, EXEC_MAX_PROBLEMS);
  msg_problems m = {.gen = ++e->gen, .n = n};
  e->nprobs = n;
  for (int k = 0; k < n; k++) e->probs[k] = m.probs[k] = probs[k];
  for (int g = 0; g < EXEC_MAX_GROUPS; g++) {
    e->starved[g] = 0;
    for (int k = 0; k < EXEC_MAX_PROBLEMS; k++) e->best[g][k] = e->race[g][k] = NAN;
  }
  for (int r = 1; r < e->n; r++) {
    if (!e->r[r].alive) continue;
    e->r[r].ready_gen = -1;
    if (dist_send(e->d, r, TAG_PROBLEM, &m, sizeof m, err) != 0) lose(e, r, err->msg);
  }
  double until = now_seconds() + SETUP_TIMEOUT_S;
  for (;;) {
    int waiting = 0, alive = 0;
    for (int r = 1; r < e->n; r++) {
      alive += e->r[r].alive;
      waiting += e->r[r].alive && e->r[r].ready_gen != e->gen;
    }
    if (!alive) return cterr_set(err, "no rank is left to measure on");
    if (!waiting) return 0;
    if (now_seconds() > until) {
      for (int r = 1; r < e->n; r++)
        if (e->r[r].alive && e->r[r].ready_gen != e->gen) lose(e, r, "no answer to the problem setup");
      continue;
    }
    exec_done d;
    if (take(e, &d, 100, err) < 0) return -1;
  }
}

static void r_stop(exec *x) { /* queued work is dropped; what ranks hold comes back */
  exec_ranks *e = (exec_ranks *)x;
  int k = 0;
  for (int i = 0; i < e->nt; i++)
    if (e->t[i].rank >= 0) e->t[k++] = e->t[i];
  e->nt = k;
}

static void r_drain(exec *x) {
  exec_ranks *e = (exec_ranks *)x;
  e->nt = 0;
  for (int r = 1; r < e->n; r++) memset(e->r[r].used, 0, sizeof e->r[r].used);
}

static double r_copy_gbps(exec *x, int g, int prob) {
  exec_ranks *e = (exec_ranks *)x;
  int k = slot_of(e, prob);
  for (int r = 1; r < e->n && k >= 0; r++) {
    int lg = rank_lg(&e->r[r], g);
    if (e->r[r].alive && lg >= 0 && e->r[r].ready_gen == e->gen) return e->r[r].copy[lg][k];
  }
  return x->group[g].info.copy_gbps;
}

/* The ranks' records carry their own cublas_share (filled where they were measured); the
 * coordinator has no baseline figure of its own to print. */
static double r_sgemm_ms(exec *x, int g, int prob, const char **why) {
  (void)x, (void)g, (void)prob;
  *why = "";
  return NAN;
}

static void r_free(exec *x) {
  exec_ranks *e = (exec_ranks *)x;
  cterr err;
  int32_t lost = 0;
  for (int r = 1; r < e->n; r++) lost += !e->r[r].alive;
  /* the lost ones too; with a rank lost nobody calls MPI_Finalize, which would wait for it */
  for (int r = 1; r < e->n; r++) dist_send(e->d, r, TAG_QUIT, &lost, sizeof lost, &err);
  dist_close(e->d, lost > 0);
  free(e->r), free(e->t);
  dbuf_free(&e->buf);
  free(e);
}

/* The energy pass: one task marked with its window, to a rank of the group with room; nothing
 * else is in flight then. 1 with d filled, 0 when the rank had nothing to measure (or the task
 * was lost with its rank and no other rank of the model took it), -1 on an error. */
static int r_remeasure(exec *x, int g, int prob, size_t cfg, int energy_ms, exec_done *d, cterr *err) {
  exec_ranks *e = (exec_ranks *)x;
  if (e->nt) return cterr_set(err, "energy pass: %d configurations still in flight", e->nt);
  if (queue_task(e, g, prob, cfg, energy_ms > 0 ? energy_ms : 1, err) != 0) return -1;
  for (;;) {
    int w = r_wait(x, d, 1000, err);
    if (w != 0) return w;
    if (e->nt == 0) return 0;
  }
}

static const exec_ops ranks_ops = {r_problems, r_room,      r_submit,    r_best,     r_wait, r_inflight, r_stop,
                                   r_drain,    r_remeasure, r_copy_gbps, r_sgemm_ms, r_free, NULL};

/* Rank 0: wait for every other rank's HELLO and join their groups by model name. */
static int ranks_new(dist *d, const space *s, const run_opts *o, exec **out, cterr *err) {
  exec_ranks *e = xcalloc(1, sizeof *e);
  e->base.ops = &ranks_ops;
  e->d = d;
  e->s = s;
  e->n = dist_size(d);
  e->r = xcalloc((size_t)e->n, sizeof *e->r);
  e->rank_timeout = o->rank_timeout > 0 ? o->rank_timeout : 120;
  dbuf_init(&e->buf);
  int waiting = e->n - 1;
  for (int r = 1; r < e->n; r++) e->r[r].alive = 1, e->r[r].ready_gen = -1, e->r[r].heard = -1;
  double until = now_seconds() + START_TIMEOUT_S;
  while (waiting > 0 && now_seconds() < until) {
    int from, tag;
    int got = dist_recv(d, &from, &tag, &e->buf, 100, err);
    if (got < 0) goto fail;
    if (got == 0 || from <= 0 || from >= e->n || e->r[from].heard >= 0) continue;
    rrank *rr = &e->r[from];
    rr->heard = now_seconds();
    waiting--;
    if (tag != TAG_HELLO || e->buf.len != sizeof(msg_hello)) {
      lose(e, from, tag == TAG_FAIL ? e->buf.data : "an unexpected first message");
      continue;
    }
    msg_hello h;
    memcpy(&h, e->buf.data, sizeof h);
    rr->ngroups = h.ngroups < EXEC_MAX_GROUPS ? h.ngroups : EXEC_MAX_GROUPS;
    for (int lg = 0; lg < rr->ngroups; lg++) {
      h.info[lg].name[sizeof h.info[lg].name - 1] = 0;
      int g = 0;
      while (g < e->base.ngroups && strcmp(e->base.group[g].info.name, h.info[lg].name)) g++;
      if (g == EXEC_MAX_GROUPS) {
        cterr_set(err, "more than %d GPU models in one run", EXEC_MAX_GROUPS);
        goto fail;
      }
      if (g == e->base.ngroups) e->base.group[e->base.ngroups++].info = h.info[lg];
      if (o->arch && !job_arch_matches(o->arch, h.info[lg].arch)) {
        cterr_set(err, "--arch %s does not match rank %d's %s (%s); leave --arch out", o->arch, from, h.info[lg].name,
                  h.info[lg].arch);
        goto fail;
      }
      e->base.group[g].ndevices += h.ndevices[lg];
      rr->g_of[lg] = g;
      rr->room[lg] = h.room[lg];
    }
  }
  for (int r = 1; r < e->n; r++)
    if (e->r[r].heard < 0) lose(e, r, "it did not start");
  if (e->base.ngroups == 0) {
    cterr_set(err, "none of the %d other ranks has a GPU to measure on", e->n - 1);
    goto fail;
  }
  if (!o->quiet) {
    int alive = 0;
    for (int r = 1; r < e->n; r++) alive += e->r[r].alive;
    fprintf(stderr, "rank 0 of %d coordinates; %d rank%s measure%s\n", e->n, alive, alive == 1 ? "" : "s",
            alive == 1 ? "s" : "");
  }
  *out = &e->base;
  return 0;
fail:
  r_free(&e->base);
  return -1;
}

/* ---- every other rank: serve rank 0 with this host's devices ---- */

static void send_fail(dist *d, const char *msg) {
  cterr e2;
  dist_send(d, 0, TAG_FAIL, msg, strlen(msg) + 1, &e2);
}

static int held(const msg_problems *set, int prob) {
  for (int k = 0; k < set->n; k++)
    if (set->probs[k] == prob) return 1;
  return 0;
}

static int serve(dist *d, space *s, const run_opts *o, const char *self_exe, const int *ordinals, int n,
                 const compile_source *src, int *abandon, cterr *err) {
  exec *x = NULL;
  dbuf buf, json;
  dbuf_init(&buf), dbuf_init(&json);
  int rc = -1, failed = 0, rank = dist_rank(d);
  if (exec_local_new(s, o, self_exe, ordinals, n, src, NULL, &x, err) != 0) {
    fprintf(stderr, "cutune: rank %d: %s\n", rank, err->msg);
    send_fail(d, err->msg);
    failed = 1;
  } else {
    msg_hello h;
    memset(&h, 0, sizeof h);
    h.ngroups = x->ngroups;
    for (int lg = 0; lg < x->ngroups; lg++) {
      h.info[lg] = x->group[lg].info;
      h.ndevices[lg] = x->group[lg].ndevices;
      h.room[lg] = x->ops->room(x, lg, -1); /* per problem */
    }
    if (dist_send(d, 0, TAG_HELLO, &h, sizeof h, err) != 0) goto done;
  }
  double last_sent = now_seconds();
  msg_problems set = {.n = 0};
  int busy = 0;
  for (;;) {
    int from, tag;
    int got = dist_recv(d, &from, &tag, &buf, busy ? 0 : 20, err);
    if (got < 0) goto done;
    if (got == 1 && tag == TAG_QUIT) {
      int32_t lost = 0;
      if (buf.len == sizeof lost) memcpy(&lost, buf.data, sizeof lost);
      *abandon = lost > 0;
      break;
    }
    if (got == 1 && !failed && tag == TAG_PROBLEM && buf.len == sizeof(msg_problems)) {
      memcpy(&set, buf.data, sizeof set);
      x->ops->drain(x);
      msg_ready r;
      memset(&r, 0, sizeof r);
      r.gen = set.gen;
      cterr perr;
      r.ok = x->ops->problems(x, set.probs, set.n, &perr) == 0;
      if (!r.ok) snprintf(r.message, sizeof r.message, "%s", perr.msg), set.n = 0;
      for (int lg = 0; lg < x->ngroups; lg++)
        for (int k = 0; k < set.n; k++) r.copy_gbps[lg][k] = x->ops->copy_gbps(x, lg, set.probs[k]);
      for (int k = 0; k < set.n; k++) snprintf(r.data[k], sizeof r.data[k], "%s", space_data_digest(s, set.probs[k]));
      if (dist_send(d, 0, TAG_READY, &r, sizeof r, err) != 0) goto done;
      last_sent = now_seconds();
    } else if (got == 1 && !failed && tag == TAG_TASK && buf.len == sizeof(msg_task) &&
               ((msg_task *)buf.data)->energy_ms > 0) {
      /* the energy pass: measured now (nothing else is in flight), the record sent back, or
       * the bare header when there is nothing to measure */
      msg_task m;
      memcpy(&m, buf.data, sizeof m);
      exec_done dn;
      int w = held(&set, m.prob) && m.lg >= 0 && m.lg < x->ngroups
                  ? x->ops->remeasure(x, m.lg, m.prob, (size_t)m.cfg, m.energy_ms, &dn, err)
                  : 0;
      if (w < 0) {
        fprintf(stderr, "cutune: rank %d: %s\n", rank, err->msg);
        send_fail(d, err->msg);
        failed = 1;
        continue;
      }
      msg_result r = {.prob = m.prob, .lg = m.lg, .cfg = m.cfg};
      dbuf_reset(&json);
      dbuf_append(&json, &r, sizeof r);
      if (w == 1) {
        record_to_json(&dn.rec, &json);
        record_free(&dn.rec);
      }
      if (dist_send(d, 0, TAG_RESULT, json.data, json.len, err) != 0) goto done;
      last_sent = now_seconds();
      continue;
    } else if (got == 1 && !failed && tag == TAG_TASK && buf.len == sizeof(msg_task)) {
      msg_task m;
      memcpy(&m, buf.data, sizeof m);
      if (held(&set, m.prob) && m.lg >= 0 && m.lg < x->ngroups) {
        x->ops->best(x, m.lg, m.prob, m.best_ms, m.race_ms);
        if (x->ops->submit(x, m.lg, m.prob, (size_t)m.cfg, err) != 0) goto done;
      }
    }
    busy = 0;
    if (!failed) {
      exec_done dn;
      int w = x->ops->wait(x, &dn, got == 1 ? 0 : 20, err);
      if (w < 0) { /* nothing more this rank can do: rank 0 gives its work to others */
        fprintf(stderr, "cutune: rank %d: %s\n", rank, err->msg);
        send_fail(d, err->msg);
        failed = 1;
      } else if (w == 1) {
        msg_result m = {.prob = dn.prob, .lg = dn.group, .cfg = dn.cfg};
        dbuf_reset(&json);
        dbuf_append(&json, &m, sizeof m);
        record_to_json(&dn.rec, &json);
        record_free(&dn.rec);
        if (dist_send(d, 0, TAG_RESULT, json.data, json.len, err) != 0) goto done;
        last_sent = now_seconds();
        busy = 1;
      }
    }
    if (now_seconds() - last_sent >= 1.0) {
      if (dist_send(d, 0, TAG_BEAT, NULL, 0, err) != 0) goto done;
      last_sent = now_seconds();
    }
  }
  rc = 0;
done:
  exec_free(x);
  dbuf_free(&buf), dbuf_free(&json);
  return rc;
}

int exec_open(space *s, const run_opts *o, const char *self_exe, const int *ordinals, int n, const compile_source *src,
              const exec_prefetch *pre, exec **out, int *served, cterr *err) {
  *out = NULL;
  *served = 0;
  if (dist_launched() <= 1) return exec_local_new(s, o, self_exe, ordinals, n, src, pre, out, err);
  dist *d;
  if (dist_open(&d, err) != 0) return -1;
  if (dist_size(d) <= 1) { /* launched alone */
    dist_close(d, 0);
    return exec_local_new(s, o, self_exe, ordinals, n, src, pre, out, err);
  }
  if (dist_rank(d) == 0) return ranks_new(d, s, o, out, err);
  *served = 1;
  int abandon = 0;
  int rc = serve(d, s, o, self_exe, ordinals, n, src, &abandon, err);
  dist_close(d, abandon || rc != 0);
  return rc;
}
