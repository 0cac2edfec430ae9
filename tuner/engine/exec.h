/* exec: where the tuning loop (tune.c) has its configurations compiled and measured. Two
 * kinds behind one small table of functions:
 *   exec_local.c  the devices of this host: one compile pool, one GPU worker per device;
 *   exec_ranks.c  under MPI, the ranks of other hosts (each runs an exec_local of its own),
 *                 reached through tuner/dist (the only owner of mpi.h).
 * The loop deals only in (group, problem, configuration) -> record: it asks each group's
 * strategy of each problem for as many configurations as the exec has room for, hands them over
 * with exec_submit, and writes each record exec_wait gives back (store, strategy, display).
 *
 * Problems: the exec holds up to EXEC_MAX_PROBLEMS of them set up at once on every device
 * (ops.problems), so that configurations of several problems are measured side by side (the
 * overlap of problems, docs/ARCHITECTURE.md "The tuning loop"); a run that tunes its problems
 * one after the other sets up one at a time. A configuration submitted for several problems is
 * compiled once (the compile pool shares a key in flight).
 *
 * Groups: devices of one model (the same device name) form a group, tuned as one: one store
 * results/<model>/, one strategy, one search. A group's info is that of its first device.
 * Records come back as measured (gpu.c fills the device fields of those that reached a GPU);
 * the loop fills the rest of their provenance, in one place (tune.c, stamp).
 *
 * Ownership: the exec borrows the space and the options (they outlive it); exec_free frees
 * everything else, exec_free(NULL) does nothing. */
#ifndef CUTUNE_EXEC_H
#define CUTUNE_EXEC_H

#include "gpu/gpu.h"
#include "job.h"

#define EXEC_MAX_GROUPS 16
#define EXEC_MAX_DEVICES GPU_WAIT_MAX
#define EXEC_MAX_PROBLEMS GPU_PROBLEMS
/* Problems are held at once only while their buffers (the reference's copies of the outputs and
 * the initial contents of in/out buffers included) take at most this share of a device's memory:
 * the configurations' own needs, the copy ceiling's and cuBLAS's buffers stay free. */
#define EXEC_OVERLAP_MEM 0.5

typedef struct exec_group {
  gpu_device_info info; /* the first device of the group */
  int ndevices;
} exec_group;

typedef struct exec_done {
  int group, prob;
  size_t cfg;
  record rec; /* owned by the caller once returned */
} exec_done;

typedef struct exec exec;
typedef struct exec_ops {
  /* Set problems probs[0..n-1] (1 <= n <= EXEC_MAX_PROBLEMS) up on every device at once (the
   * references run there), in place of those set up before; configurations are then submitted
   * for any of them. */
  int (*problems)(exec *x, const int *probs, int n, cterr *err);
  /* How many more configurations of group g on problem prob it takes now (each problem has a
   * window of its own: what several problems share compiles once). */
  int (*room)(exec *x, int g, int prob);
  int (*submit)(exec *x, int g, int prob, size_t cfg, cterr *err);
  /* The best median (ms) of group g on problem prob so far (who is a contender), and the racing
   * reference: the k-th best fully timed median (NAN: no racing yet; gpu_job.race_ms). */
  void (*best)(exec *x, int g, int prob, double best_ms, double race_ms);
  /* One finished configuration: 1 with *d filled, 0 when none finished within timeout_ms
   * (or nothing is in flight), -1 on an error that ends the run. */
  int (*wait)(exec *x, exec_done *d, int timeout_ms, cterr *err);
  /* Configurations of group g on problem prob (-1: on any) submitted and not yet returned. */
  int (*inflight)(exec *x, int g, int prob);
  /* Stop: drop what is not on a GPU yet; wait then returns only what is being measured. */
  void (*stop)(exec *x);
  /* After an error: forget everything in flight, so the next problems start clean. */
  void (*drain)(exec *x);
  /* Measure configuration cfg of group g on problem prob (one set up) again, now, on one
   * device of the group, with an energy window of energy_ms (the energy pass): 1 with d filled,
   * 0 when there is nothing to measure (it does not compile, or this exec cannot), -1 on an
   * error. Nothing else may be in flight. */
  int (*remeasure)(exec *x, int g, int prob, size_t cfg, int energy_ms, exec_done *d, cterr *err);
  /* The copy ceiling group g's records of problem prob are compared with (gpu_copy_gbps of its
   * first device). */
  double (*copy_gbps)(exec *x, int g, int prob);
  /* The cuBLAS SGEMM baseline of group g for problem prob (gpu_sgemm_ms of its first device),
   * NAN when none; *why then says why ("" when the space asks for none). */
  double (*sgemm_ms)(exec *x, int g, int prob, const char **why);
  void (*free)(exec *x);
  /* The compile pool's counters (compile.h): 0 where this process has no pool (ranks) */
  int (*compile_stats)(exec *x, cpool_stats *out);
} exec_ops;

struct exec {
  const exec_ops *ops;
  int ngroups;
  exec_group group[EXEC_MAX_GROUPS];
  /* configurations the loop hands over per compiled module (its runtime sweep: a proposal and
   * its runtime siblings, which share one compile); 0 or 1: one. The compile window (room)
   * counts modules, so that the pool's workers all have one to compile. Set by the loop. */
  int siblings;
};

/* Configurations to compile while the GPU workers start (exec_open's pre): the first a run's
 * search will ask for (tune.c), handed to the compile pool as soon as the devices' architecture
 * is known, so that their modules are compiled, or on their way, when the loop submits them
 * (a submit of the same key joins the compile in flight, or finds its result in the cache or
 * the pool's memory). Nothing is measured or recorded for them here. */
typedef struct exec_prefetch {
  /* fills out with at most max configurations (the modules the compile window holds, at most
   * EXEC_PREFETCH_MAX); called once the devices' architecture is known and their reference
   * compiled, while the workers finish their start (its own time hidden) */
  size_t (*list)(void *ctx, const char *device_name, size_t *out, size_t max);
  void *ctx;
} exec_prefetch;
#define EXEC_PREFETCH_MAX 64 /* configurations prefetched at most */

/* The devices of this host: ordinals[0..n-1] (GPU worker per device), one compile pool.
 * src is the template and its includes (job_load_source); pre may be NULL. */
int exec_local_new(space *s, const run_opts *o, const char *self_exe, const int *ordinals, int n,
                   const compile_source *src, const exec_prefetch *pre, exec **out, cterr *err);

/* The exec of this process: exec_local over ordinals, or, when started as several MPI ranks
 * (tuner/dist), on rank 0 the exec of the other ranks; every other rank serves rank 0 with an
 * exec_local over ordinals until told to quit, and returns with *served = 1 and no exec. */
int exec_open(space *s, const run_opts *o, const char *self_exe, const int *ordinals, int n, const compile_source *src,
              const exec_prefetch *pre, exec **out, int *served, cterr *err);

/* Which devices --devices names: "all" (every device the driver reports, count of them in
 * ndevices_here), or a comma list of ordinals "0,2,3". Fills ordinals (at most max). */
int exec_parse_devices(const char *spec, int ndevices_here, int *ordinals, int max, int *n, cterr *err);

/* Whether problems probs[0..n-1] may be held at once on a device of mem_bytes (EXEC_OVERLAP_MEM);
 * *need gets the bytes their buffers take together. */
int exec_problems_fit(space *s, const int *probs, int n, int64_t mem_bytes, double *need);

static inline void exec_free(exec *x) {
  if (x) x->ops->free(x);
}
#endif
