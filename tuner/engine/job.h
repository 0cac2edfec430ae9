/* job: what both paths of `cutune run` share — the run's options, the compile job of a
 * configuration and its options hash, the record a measurement starts from, problem selection
 * and the compile pool; the check hash of each problem (job_check.c). run.c fills the options;
 * compile_only.c and tune.c call the rest.
 * job.c calls only the layers below engine/, never back into tune or compile_only. */
#ifndef CUTUNE_JOB_H
#define CUTUNE_JOB_H

#include <stdint.h>

#include "compile/compile.h"
#include "gpu/gpu.h"
#include "store/record.h"
#include "space/space.h"

#define RUN_SAMPLE_ALL (-1L)

typedef struct run_opts {
  const char *space_path;
  const char *results_dir; /* default "results" */
  const char *arch;        /* NULL: the device's, or sm_90 without one */
  const char *cache_dir;   /* NULL: compile_cache_default_dir() */
  int no_cache;
  int jobs;            /* compile workers; 0 = online CPUs */
  int device;          /* GPU ordinal */
  const char *devices; /* --devices: "all" or "0,2,3"; NULL: device alone */
  double rank_timeout; /* MPI: seconds of silence before a rank holding work is taken as lost */
  int compile_only;
  long sample;            /* compile-only: this many configurations (a cover first); 0: the default
                              (compile_only.h), RUN_SAMPLE_ALL: every one */
  const char *csv;        /* compile-only: the whole resource table also to this CSV file */
  double compile_timeout; /* seconds one compile may take before its worker is killed */
  const char *strategy;   /* NULL: default for the space and budget */
  long budget;            /* evaluations per problem; 0 = unlimited */
  double time_limit;      /* seconds per problem; 0 = unlimited */
  uint64_t seed;
  const char *problem; /* --problem: the selection (job_problem_selected); NULL: every problem */
  int top;             /* rows in the final table */
  int max_samples, min_samples;
  int min_samples_given; /* --min-samples given: exactly that many, even for long launches */
  double rse;
  int quiet, verbose;
  int progress_tty;     /* -1 auto */
  int energy_top;       /* energy pass: at most this many configurations per problem */
  double energy_within; /* ... within this fraction of the best time */
  int no_runtime_sweep; /* --no-runtime-sweep: measure only what the strategy proposes */
  /* shape sets (tune.h, shapes.h): transfer -1 off, 0 on for a set (TUNE_SET_MIN problems
   * selected), 1 always; its seeds from the transfer_near nearest tuned shapes, transfer_per
   * each; patience (evaluations; -1: the default); listed: tune in the listed order, not
   * nearest-first; the cross phase (-1 off, 0 on for a set, 1 on, 2 only it): the best cross_top
   * kernels of every shape, at most cross_max, on every shape */
  int transfer, transfer_near, transfer_per;
  long patience;
  int listed;
  int cross, cross_top, cross_max;
  double race_margin; /* --race: racing's margin (docs/MEASURE.md); < 0: off */
  int batch;          /* --batch: configurations per NVRTC program; 0 automatic, 1 none */
  int race_samples;   /* --race-samples: samples before the first racing test */
  double race_early;  /* --race-early: before the k-th best exists, race against the best x this; 0: off */
  int no_overlap;     /* --no-overlap: a run's problems one after the other, never side by side (tune.c) */
} run_opts;

/* What a run came to, for the exit status (run.c maps it; the codes are in run's --help):
 * configurations with a final record for the selected problems, how many of those failed, and
 * whether the run was interrupted. */
typedef struct run_outcome {
  size_t configs, failed;
  int interrupted;
  int no_device; /* run_tune: the GPU worker found no driver or device (gpu_error_is_no_device) */
} run_outcome;

/* Compile the space's reference kernel (its template with -DCUTUNE_REFERENCE=1 and the
 * space's options) for arch: through pool (and so its cache) when given, before any other
 * job is submitted, else in this process through the default on-disk cache. -1 with err when it does not compile or the kernel
 * is not in it: both paths check it first, before any configuration. No reference: 0, cr empty. */
#define JOB_REFERENCE_TAG UINT64_MAX
/* Compile one job in this process through the default on-disk cache (as the pool's workers do). */
int job_compile_cached(const compile_job *job, compile_result *cr, cterr *err);
int job_compile_reference(const space *s, const char *arch, cpool *pool, compile_result *cr, cterr *err);

/* The user's check kernel (check = { kernel = ..., template = ... }), compiled once as the
 * reference is (its template with -DCUTUNE_CHECK=1); none: 0, cr empty. job_problem_check puts
 * it into a problem set up by job_problem. */
int job_compile_check(const space *s, const char *arch, cpool *pool, compile_result *cr, cterr *err);
void job_problem_check(const space *s, const compile_result *chk, gpu_problem *gp);
/* The space's init launches (space.h: space_init_*), one program compiled once as the reference is
 * (its template with -DCUTUNE_INIT=1 and the init's defines; every init kernel a name of it); none:
 * 0, cr empty. job_problem_init puts it and problem prob's launches (lowered names, arguments,
 * geometry) into a problem set up by job_problem, for the GPU worker to run before the reference. */
int job_compile_init(const space *s, const char *arch, cpool *pool, compile_result *cr, cterr *err);
int job_problem_init(space *s, int prob, const compile_result *ini, gpu_problem *gp);

/* job_check.c: the check hash of every problem of the space into out[0..nproblems) (hex, 16
 * bytes of sha256, as the options hash): each output's and inout's comparison (bitwise,
 * tolerance, atol/rtol, reduce, mismatches, or not compared; its type and count), the space's
 * tolerance, its check kernel (name and template digest), the reference (kernel, template
 * digest, defines, arguments, whether each configuration's program holds it, its launch), or
 * only that nothing is compared (check = false). src: the space's loaded template (its digest
 * serves for a program in the same file). A record carries its problem's hash (record.h), and
 * the store answers a run only with records of the run's (store_find): a changed check
 * re-measures. Buffers filled from the space's data (values, file) add its digest
 * (space_data_digest), checked or not, and of the symbols given data (values, file), and the
 * space's init launches (kernels, defines, arguments, geometry); seeded fills (buffers' and
 * symbols') are not in it. */
int job_check_hashes(space *s, const compile_source *src, char (*out)[33], cterr *err);
/* The same from the space alone (its template loaded here): what `cutune header` and `cutune
 * best --space` ship by. *out gets space_nproblems(s) hashes (at least one entry); the caller
 * frees it. */
int job_space_check_hashes(space *s, char (**out)[33], cterr *err);

/* Shared by the compile-only and GPU paths: the compile job of configuration cfg
 * (-D options from the configuration's compile-time parameters, then the space's options;
 * runtime parameters reach the kernel as argument values instead: space_config_args), for the
 * architecture the space's `arch` gives it on target arch (space_config_arch: the target, or
 * its sm_XYa). Strings in job point into storage owned by `hold` (free with job_hold_free).
 * A configuration the target lacks still gets its job (for its options hash), and hold->unfit
 * says why it must not be compiled; job_record_base makes its record invalid.
 *
 * A space whose template_edit is a generator (function(text, p): space_edit_per_config) gets
 * each program's text made here for the configuration (job_edit_text; a further program of a
 * launch sequence with its launch's defines set in p), held in hold, with a digest of its own:
 * the compile cache and batches (equal digests only) go by the text, so configurations whose
 * texts are equal share them. A generator that fails for the configuration leaves its message in
 * hold->failed (job_make still returns 0): the configuration must not be compiled; it is a
 * space_error of its own (job_failed_result: the space's code failed), and the run goes on. */
typedef struct job_hold {
  char *opts[COMPILE_MAX_OPTS * COMPILE_MAX_PROGRAMS];
  int n;
  compile_job extra[COMPILE_MAX_PROGRAMS - 1]; /* the further programs of a space with launches */
  char arch[16];
  char unfit[160]; /* "" when the configuration runs on the target */
  int generated;   /* 1: the programs' texts below are the generator's (a per-configuration edit) */
  char *text[COMPILE_MAX_PROGRAMS];
  char digest[COMPILE_MAX_PROGRAMS][65];
  char *failed; /* the generator's error for this configuration (file:line, the configuration), or NULL */
} job_hold;
/* Whether --arch given names the device's architecture dev: the same, or its architecture-
 * specific variant (sm_90a on an sm_90 device). */
int job_arch_matches(const char *given, const char *dev);
int job_make(const space *s, const compile_source *src, size_t cfg, const char *arch, compile_job *job, job_hold *hold,
             cterr *err);
/* A configuration whose generator failed (hold->failed): a result that did not compile, with
 * that message, as the record's (space_error: cr->space_fault). cr: uninitialised. */
void job_failed_result(const job_hold *hold, compile_result *cr);
/* The space's template and everything it includes, read and hashed once for the run (the
 * space's options give the include folders). With a generator (space_edit_per_config) the text is
 * the template's as given to it (after template_var; no #line yet) and the digest covers the
 * function (space_edit_digest) in place of an edited text: one template hash for the run. */
int job_load_source(const space *s, compile_source *src, cterr *err);
/* A generator's program (job_load_source's src, space_edit_program's cfg and defines): *text
 * (caller frees) with the #line directives of a template_edit's text, digest = the run's digest
 * extended by "template_edit(p)" and the generated text. -1 with err as space_edit_program. */
int job_edit_text(const space *s, const compile_source *src, size_t cfg, int nd, const char *const *dn,
                  const char *const *dv, char **text, char digest[65], cterr *err);
void job_hold_free(job_hold *h);
/* job_programs.c: a space with launches — the kernels of its launches as further names of the
 * configuration's program, and its further programs chained behind it (job_make calls it); the
 * lowered names of its launches' kernels: job_launch_names below. */
int job_programs(const space *s, size_t cfg, compile_job *job, job_hold *hold, cterr *err);
/* The store's template hash of a loaded source: its digest (template and includes) cut to 32
 * hex digits. job_template_hash loads the space's source to compute it: what `cutune header`,
 * `best --space` and `explain` match records with, as `run` writes them. */
void job_source_hash(const compile_source *src, char out[33]);
int job_template_hash(const space *s, char out[33], cterr *err);
/* One warning line in warn per compile-time parameter whose name appears nowhere in the
 * template and the files it includes (as a whole word, comments included) nor in the space
 * file beyond its declaration (a parameter the space's block or grid function reads may steer
 * the launch alone): its -D changes nothing, so it is most likely misspelt (and a template's
 * #ifndef default applies to every configuration). */
void job_check_params(const space *s, const compile_source *src, dbuf *warn);
/* sha256 (16 bytes hex) of a job's option list, for provenance and resume; with a generator's
 * texts (hold->generated) their digests too (or its failure), so a configuration whose text
 * changed is measured again and the run's count of modules is of distinct programs. */
void job_options_hash(const compile_job *job, const job_hold *hold, char out[33]);
/* The options hash of every configuration of a space for one architecture (the resume key),
 * each computed when first asked for: a space of millions (Kernel Tuner's convolution, 1.87 M)
 * pays only for the configurations a run touches (all of them up front took 5.6 s there, before
 * the first measurement). job_ohashes_new makes configuration 0's job to check the space can be
 * made at all (err otherwise); job_ohash gives "" for one whose job cannot be made, which
 * matches no record. The strings live as long as the table. */
typedef struct job_ohashes job_ohashes;
job_ohashes *job_ohashes_new(const space *s, const compile_source *src, const char *arch, cterr *err);
const char *job_ohash(job_ohashes *h, size_t cfg);
void job_ohashes_free(job_ohashes *h);

/* Whether --problem (if given) selects problem prob. o->problem holds one item per --problem,
 * separated by ';': an index, a range A-B, a comma list of them (0,3,5-9), sizes (anything with
 * '=': NAME=VALUE pairs in any order, all of a problem's or some, "N=8192,M=8192", "M=4096",
 * selecting every problem with those values) or all; an item selects what it names. */
int job_problem_selected(const space *s, const run_opts *o, int prob);
/* Check the selection (-1 with err for a malformed item, an index past the last problem, an
 * item that selects nothing) and count the problems it selects. */
int job_problem_selection(const space *s, const run_opts *o, int *count, cterr *err);
/* One problem (explain, report, __profile-one): its index ("0"), or NAME=VALUE pairs in any
 * order ("N=8192,M=8192"), all of a problem's dimensions or some ("M=4096"), as long as exactly
 * one problem has those values. -1 with err naming the problems otherwise. */
int job_find_problem(const space *s, const char *spec, cterr *err);
/* The configuration a key names: NAME=VALUE for every parameter, in any order
 * ("TILE=32,PAD=1,..."); -1 with err when a name or value is not the space's or its constraints
 * reject the configuration. */
long job_find_config(const space *s, const char *key, cterr *err);
/* The compile pool the options ask for (--jobs, --cache/--no-cache). *jobs gets the worker count.
 * A cache folder that cannot be created or written is an error when --cache named it, and a
 * warning (the run goes on without a cache) when it is the default. */
int job_open_pool(const run_opts *o, const char *self_exe, cpool **pool, int *jobs, cterr *err);

/* A record for configuration cfg on problem prob with the space's parameters, the compile
 * result's status and resources, and the theoretical occupancy on arch (geometry from the
 * space). Fills rec (initialised by the call). launch (NULL: not wanted) gets the launch of the
 * GPU job: the geometry and the per-configuration argument values (runtime parameters; none for
 * most spaces), evaluated once here (job_launch_eval), and rec its launch hash. A compiled
 * configuration whose launch fails is recorded space_error where the space's own code failed
 * (cterr.code CTERR_SPACE: space.h, "Errors of a configuration's functions"), a failure, and
 * invalid where it is over a limit, which is data; so launch is whole wherever rec's status is
 * ST_OK. */
void job_record_base(space *s, size_t cfg, int prob, const char *arch, const compile_result *cr, record *rec,
                     gpu_job *launch);

/* job_launch.c: the launch of configuration cfg on problem prob as the GPU job gets it (its
 * geometry, per-configuration argument values, element types of typed buffers, tensor maps, the
 * per-configuration reference's geometry, each launch of a sequence with its kernel's name left
 * empty: job_launch_names lowers them), from the space's functions; -1 with err (and its code)
 * when one fails. job_launch_digest: its digest, the records' launch hash (record.h), over the
 * problem's arguments too (their order, kinds, scalar values, buffers' types and counts) and each
 * launch's kernel as the space names it. job_launch_hash: the launch (into gj, NULL: not wanted)
 * and its hash as a record made now would carry it: 0, a launch; 1 (err) over a limit of CUDA
 * (an invalid record), hashed from the limit's message less its file:line; -1 (err, out "") where
 * the space's own code fails (CTERR_SPACE: a space_error record). */
int job_launch_eval(space *s, size_t cfg, int prob, gpu_job *gj, cterr *err);
void job_launch_digest(space *s, int prob, const gpu_job *gj, char out[33]);
int job_launch_hash(space *s, size_t cfg, int prob, gpu_job *gj, char out[33], cterr *err);
/* The launch hashes a run compares stored records with (store_find_want), each computed when
 * first asked for: a lookup asks only where a stored record carries one, so a space of millions
 * pays one evaluation of its Lua functions per configuration and problem that has such a record,
 * not per configuration. job_lhash: NULL where the space's own code fails (no record answers
 * then but one without a launch hash). */
typedef struct job_lhashes job_lhashes;
job_lhashes *job_lhashes_new(space *s);
const char *job_lhash(job_lhashes *t, size_t cfg, int prob);
void job_lhashes_free(job_lhashes *t);
/* job_programs.c: the kernel names of a configuration's n launches (job_launch_eval), lowered
 * from its compile result cr. */
void job_launch_names(const space *s, const compile_result *cr, launch_step *steps, int n);
/* A run stops handing out configurations when its first JOB_SPACE_STOP records all failed in the
 * space's own code: most likely one mistake every configuration meets (docs/SPACE.md, Geometry). */
#define JOB_SPACE_STOP 16

/* The GPU worker's description of problem prob: the space's arguments (inputs filled from seed),
 * the check's tolerance, the reference (its compiled result ref, kernel and geometry), bytes and
 * flops. Shared by the tuning loop (exec_local.c) and `cutune __profile-one`. */
int job_problem(space *s, int prob, uint64_t seed, const compile_result *ref, gpu_problem *gp, cterr *err);
/* The lowered name of the space's kernel in compile result cr (a C++ kernel's mangled name), into buf. */
const char *job_kernel_name(const space *s, const compile_result *cr, char *buf, size_t n);
/* Whether a compile error says the kernel is over a limit of the architecture (shared memory,
 * registers): such a configuration is recorded invalid, which is data, not a failure. */
int job_over_limit(const char *message);

#endif
