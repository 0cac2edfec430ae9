/* compile: CUDA source → cubin through NVRTC, with an on-disk cache and a pool of worker
 * processes. compile.c (NVRTC; the only unit that includes nvrtc.h), compile_cache.c
 * (results, keys, cache), compile_pool.c + compile_wire.c (workers and their protocol),
 * occupancy.c (theoretical occupancy tables).
 *
 * A configuration reaches NVRTC as -D options (never prepended #defines), so the line
 * numbers in error messages are the template's own. Resources (registers, static shared
 * memory, stack frame, spills) are read from ptxas' verbose report in the program log.
 *
 * Ownership: compile_result owns its cubin and log (compile_result_free). */
#ifndef CUTUNE_COMPILE_H
#define CUTUNE_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

#define COMPILE_MAX_OPTS 96
#define COMPILE_MAX_NAMES 15
#define COMPILE_MAX_PROGRAMS 4 /* programs chained in one job (compile_job.next) */

typedef struct compile_job {
  const char *src_path;   /* for messages and #line: the template's path */
  const char *src;        /* the source text */
  const char *src_digest; /* compile_source digest of src and everything it includes (64 hex),
                             or NULL: the cache key then hashes src alone */
  const char *kernel;     /* the kernel as a C++ name expression ("k", "ns::k<TILE, 4>": parameters are
                           macros there), to check it exists, instantiate it and read its resources */
  const char *arch;       /* "sm_90" */
  int lineinfo;           /* 1: -lineinfo too (for profilers: cutune explain; the code is the same) */
  int twice;              /* 1: a compile worker compiles it twice and reports the second (the pool's
                           probe of NVRTC's fixed cost: a process's first compile also pays
                           NVRTC's own start) */
  int nopts;
  const char *opts[COMPILE_MAX_OPTS]; /* -DTILE=64 ... and the space's own options */
  int nnames;                         /* further name expressions (other kernels; "&sym" for a __constant__ or
                           __device__ variable) whose lowered names the result carries */
  const char *names[COMPILE_MAX_NAMES];
  const struct compile_job *next; /* a further program of the same configuration, compiled with this
                                     one into a bundle (compile_bundle.c); NULL: one program */
  int alone;                      /* 1: never compiled in a batch (compile_batch.c): the module's symbols keep their own
                names (the GPU worker fills the space's __constant__ and __device__ variables by
                name, which a batch member's namespace would change) */
} compile_job;

typedef struct kresources {
  int regs, smem_static, local_bytes, spill_stores, spill_loads; /* -1 if unknown */
} kresources;

typedef struct compile_result {
  int ok; /* 1: cubin holds the image */
  dbuf cubin;
  dbuf log;      /* the NVRTC log, whole */
  char *message; /* on failure: "templates/x.cu(37): error: ... [compiled with -DTILE=64 ...]" */
  kresources res;
  double compile_ms; /* time NVRTC took (a cache hit or a shared result: as its compile took) */
  int cached;        /* 1 if served from the on-disk cache */
  int shared;        /* 1: a copy of the result of a job of the same key that was queued or
                        compiling when this one was submitted (compile_pool.c), not compiled again */
  int timed_out;     /* 1: ran past the pool's deadline; the worker was killed (not cached) */
  int lost;          /* 1: the worker was killed from outside mid-job (SIGKILL, SIGTERM, ...):
                        no fault of the configuration (not cached; a resumed run retries it) */
  char key[65];      /* cache key (sha256 hex) */
  char *lowered;     /* the lowered (mangled) names of the job's kernel and names[], one line each, in
                        that order (nvrtcGetLoweredName); NULL where unknown: the names as given */
  int batch;         /* configurations in the NVRTC program that made it (1: alone; 0: unknown): a
                        member of a batch has its kernel renamed cutune_b<i>_<kernel> (lowered) */
  int retry;         /* 1: its batch could not say whether it compiles: compile it alone; 2: it
                        compiled, but its program failed over another member's static shared
                        memory (that member has its own result): it may share a program again */
  int space_fault;   /* 1: never compiled: the space's own code could not make its program (a
                        generator's failure, job_failed_result): a space_error record */
} compile_result;

void compile_result_init(compile_result *r);
void compile_result_free(compile_result *r);
void compile_result_copy(compile_result *dst, const compile_result *src); /* deep; dst uninitialised */
/* The lowered name of name i of the job (0: the kernel, 1..: names[i-1]) as the result recorded
 * it, into out (size n); where the result has none, the name expression given as fallback (less
 * a leading '&': an extern "C" name lowers to itself). */
const char *compile_lowered(const compile_result *r, int i, const char *fallback, char *out, size_t n);

/* NVRTC's version as "13.0". */
const char *compile_nvrtc_version(void);
/* Architectures NVRTC can target here, e.g. "sm_80 sm_86 sm_89 sm_90 ..." (static string). */
const char *compile_supported_archs(void);
/* 1 if NVRTC can produce a cubin for arch ("sm_90", "sm_90a"), else 0. */
int compile_arch_supported(const char *arch);

/* The toolkit's include folder that compile_now passes as the first -I (NULL when none). */
const char *compile_toolkit_include_dir(void);
/* <toolkit>/include/cccl (CUDA 13's CUB, Thrust, libcu++), which compile_now passes as the last
 * -I, after the job's own options (NULL where the toolkit has none). */
const char *compile_toolkit_cccl_dir(void);

/* A template and every file it #includes, transitively, found as NVRTC finds them (the
 * including file's folder for "x.h", then the toolkit's folder and the -I options in order),
 * read and hashed once per run (compile_source.c). digest keys the compile cache (as
 * compile_job.src_digest) and, cut to 32 hex digits, the store's template hash: a header
 * edit re-compiles and re-measures. A template that includes nothing hashes as the sha256
 * of its own bytes. Every #include line counts, whatever #if it is under; a name found
 * nowhere counts as absent. */
typedef struct compile_source {
  char *path; /* the template, as given */
  dbuf text;  /* its bytes */
  char digest[65];
  int first_line; /* the line of path that text begins on (0: its first): where the engine took a
                     part of the file as the program (a Python string: tuner/engine/job_source.c) */
  int nfiles;     /* the template and the files it includes */
  char **files;   /* their paths, the template first */
  int absent;     /* #include names found nowhere (hashed as absent) */
  int unresolved; /* #include lines naming a macro (not followed) */
} compile_source;
void compile_source_init(compile_source *cs);
/* opts: the space's NVRTC options (their -I / --include-path / --pre-include count). */
int compile_source_load(compile_source *cs, const char *path, int nopts, const char *const *opts, cterr *err);
void compile_source_free(compile_source *cs);

/* The cache key of a job: sha256 over the source (its src_digest when given), options, arch,
 * kernel and NVRTC version. COMPILE_CACHE_FORMAT goes into every key and meta file: bump it
 * when what compile_now adds to the options (or the meta format) changes, so old entries stop
 * matching. */
#define COMPILE_CACHE_FORMAT                                                                                           \
  "cutune-compile-v5" /* v3: name expressions, lowered names; v4: -lineinfo
                                                    only where asked, batch members; v5: #line in a
                                                    template_var string or an edited template (the
                                                    digest is the same, the messages are not) */
void compile_job_key(const compile_job *job, char out[65]);

/* Compile in this process. Returns 0 when NVRTC ran (res->ok says whether it succeeded:
 * a compile error is a result, not a failure), -1 when NVRTC could not run at all. */
int compile_now(const compile_job *job, compile_result *res, cterr *err);

/* compile_now on each program of the chain job, job->next, ...: one result whose image is a bundle
 * of their cubins (a chain of one: the plain cubin), whose resources are the first program's and
 * whose lowered names are the first program's, then each further program's kernel; the first
 * program that does not compile fails the result with its message (compile_bundle.c). */
int compile_bundle(const compile_job *job, compile_result *res, cterr *err);
/* How many images an image holds (1 for a plain cubin, 0 for a malformed bundle) and image i of
 * it (NULL past the end), with its length in *ilen. */
int compile_bundle_count(const void *data, size_t len);
const void *compile_bundle_image(const void *data, size_t len, int i, size_t *ilen);

/* Several configurations in one NVRTC program (compile_batch.c, compile.c). A batch's members
 * share one cubin holding all their kernels, member i's renamed cutune_b<i>_<kernel>
 * (compile_result.lowered); resources come from each kernel's own ptxas report, compile_ms is the
 * member's share (ptxas' own time for its kernel where the log gives it, plus an even share of
 * the rest). A batch that fails, or lacks a member's kernel, says nothing of its members:
 * each comes back with `retry` set, to be compiled alone.
 * compile_batch_safe: the job's template can be batched (it includes nothing, has no
 * #pragma once, its kernel is a plain identifier, and it has no
 * further names (other kernels), no further programs, no symbols to fill: compile_job.alone). compile_batch_compatible: a and b can
 * share a program (batch-safe, the same template, kernel, architecture, and the same options
 * other than -D, in order). */
#define COMPILE_BATCH_MAX 16
int compile_batch_safe(const compile_job *job);
int compile_batch_compatible(const compile_job *a, const compile_job *b);
/* n (1..COMPILE_BATCH_MAX) compatible jobs as one program: res[0..n-1] initialised and filled.
 * 0 when NVRTC ran, -1 when it could not run at all (err). */
int compile_now_batch(const compile_job *jobs, int n, compile_result *res, cterr *err);

/* On-disk cache: dir/<key[0:2]>/<key>.cubin and .meta (JSON: resources, log, status).
 * Compile errors are cached too, so a broken configuration is not recompiled (a worker
 * that died is not: that may not happen again). Entries are written tmp+rename, meta
 * last; a missing, partial or corrupt entry is a miss. */
int compile_cache_get(const char *dir, const char *key, compile_result *res); /* 1 hit, 0 miss */
/* The same without reading the cubin (res->cubin stays empty; the file must exist, whole by
 * its size): for callers that want resources only (compile-only runs). */
int compile_cache_get_resources(const char *dir, const char *key, compile_result *res);
int compile_cache_put(const char *dir, const char *key, const compile_result *res, cterr *err);
/* Default cache folder: $CUTUNE_CACHE, else $XDG_CACHE_HOME/cutune, else $HOME/.cache/cutune. */
char *compile_cache_default_dir(void);

/* Pool of compile worker processes: `self_exe __compile-worker` started with posix_spawn
 * (lazily, as jobs need them; nworkers <= 0 means one per online CPU), cache_dir NULL
 * for no cache (NVRTC's own cache is then turned off too: the workers are started with
 * COMPILE_WORKER_NO_NVRTC_CACHE and set CUDA_CACHE_DISABLE=1 for themselves),
 * fed jobs over pipes. Results come back in completion order, tagged. A worker that dies
 * is replaced and its job reported as failed, naming the signal: `lost` when it was killed
 * from outside (SIGKILL, SIGTERM, SIGINT, SIGHUP), a compile error when it crashed (NVRTC
 * faulted on that input). A compile that runs past the deadline (cpool_set_timeout, default
 * COMPILE_TIMEOUT_S; a stopped worker included) has its worker killed and comes back
 * `timed_out`. The pool checks the cache before dispatching and fills it after (never with
 * a lost or timed-out job). */
typedef struct cpool cpool;
#define COMPILE_TIMEOUT_S 60.0
int cpool_new(cpool **out, const char *self_exe, int nworkers, const char *cache_dir, cterr *err);
/* Seconds one compile may take from when a worker is handed it (> 0). */
void cpool_set_timeout(cpool *p, double seconds);
/* 1: results served from the cache come without their cubin (resources only; compile-only). */
void cpool_set_resources_only(cpool *p, int on);
/* Batches (compile_now_batch; compile_pool.c says how they are formed): n configurations at
 * most per NVRTC program, 1 for none, 0 (the default) for the automatic size. */
void cpool_set_batch(cpool *p, int n);
/* The batch size the pool would use now (1: no batching). */
int cpool_batch_size(const cpool *p);
typedef struct cpool_stats {
  long programs;   /* NVRTC programs run for jobs (cache hits and shared results not counted) */
  long batches;    /* ... of them with more than one configuration */
  long batched;    /* configurations compiled in a batch */
  long retried;    /* configurations a failed batch sent back to be compiled alone */
  long rebatched;  /* ... sent back to share a program again: their batch failed over another
                      member's static shared memory (compile.h, compile_result.retry 2) */
  int largest;     /* the most configurations one program held */
  int batch_off;   /* 1: a failed batch's members all compiled alone: batching turned off */
  double fixed_ms; /* NVRTC's fixed cost per program as timed (NAN: not timed) */
  int workers;     /* the pool's worker processes (--jobs) */
  int busy_max;    /* ... the most of them compiling at once */
  double busy_s;   /* seconds they spent compiling, summed over the workers, up to the reading
                      (a program still running counts up to now) */
} cpool_stats;
void cpool_get_stats(const cpool *p, cpool_stats *out);
/* Queue a job (copied). Never blocks on a full pool: jobs wait in a queue. */
int cpool_submit(cpool *p, uint64_t tag, const compile_job *job, cterr *err);
/* The same; *queued (may be NULL) is 1 when the job is a compile of its own (not answered from
 * the cache or the pool's memory, nor joined to the same key's compile in flight). */
int cpool_submit_ex(cpool *p, uint64_t tag, const compile_job *job, int *queued, cterr *err);
/* Hand the queued jobs to idle workers now (cpool_wait does so each time it is called): for a
 * caller that submits and will not wait for a while (exec_prefetch). -1 when no worker can run. */
int cpool_start(cpool *p, cterr *err);
/* Wait up to timeout_ms (-1 forever) for one finished job. Returns 1 with *tag and *res
 * filled, 0 on timeout, -1 on error. res is initialised by the call. */
int cpool_wait(cpool *p, uint64_t *tag, compile_result *res, int timeout_ms, cterr *err);
size_t cpool_pending(const cpool *p); /* submitted and not yet returned */
/* Give up every pending job at once (a run out of time, or interrupted): queued ones are dropped,
 * busy workers killed (each started again when a later job needs it), finished results not yet
 * taken dropped too; nothing of the killed ones is cached. Each dropped job's tag goes to `drop`
 * (may be NULL) so the caller can free what it tagged. Returns how many were dropped. */
size_t cpool_cancel(cpool *p, void (*drop)(void *ctx, uint64_t tag), void *ctx);
void cpool_free(cpool *p);
/* Body of the hidden `cutune __compile-worker` subcommand: reads jobs on stdin, writes
 * results on stdout until EOF. */
#define COMPILE_WORKER_NO_NVRTC_CACHE "--no-nvrtc-cache"
int compile_worker_main(int no_nvrtc_cache);

/* Theoretical occupancy on an architecture from resources and block size.
 * limiter: "registers" | "shared_memory" | "threads" | "blocks" | "none". */
typedef struct occupancy_info {
  int blocks_per_sm;
  double occupancy; /* active warps / max warps, 0..1 */
  const char *limiter;
} occupancy_info;
int occupancy_theoretical(const char *arch, int threads_per_block, int regs_per_thread, int smem_per_block,
                          occupancy_info *out, cterr *err);

#endif
