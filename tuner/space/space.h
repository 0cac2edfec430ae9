/* space: a tuning space loaded from a Lua file. The only unit that includes lua.h.
 *
 * space_load runs the file in a restricted environment (no os.execute, io.popen or file
 * writes; `require "cutune"` gives the embedded helper library), validates every key
 * (unknown keys are errors naming file:line), and enumerates the valid configurations.
 * Afterwards the coordinator asks plain-C questions: geometry, arguments, bytes of a
 * (configuration, problem) — each answered by calling back into the space's Lua functions
 * under a protected call, so a Lua error becomes a cterr naming file:line.
 *
 * Ownership: the space owns its lua_State, its configset and every string it returns. */
#ifndef CUTUNE_SPACE_H
#define CUTUNE_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "configset.h"
#include "launch.h"
#include "base/util.h"

typedef struct space space;

int space_load(const char *path, space **out, cterr *err);
/* Put dir first on the kernel search path ($CUTUNE_KERNEL_PATH, colon-separated), where a space's
 * template and other named files are looked for after the space's folder, its parent and the
 * working directory (`--kernel-path DIR`). */
void space_kernel_path_add(const char *dir);
void space_free(space *s);

const char *space_path(const space *s);          /* as given */
const char *space_name(const space *s);          /* `name`, default: file name without .lua */
const char *space_template_path(const space *s); /* resolved path of `template` */
const char *space_kernel(const space *s);        /* `kernel` */
/* `template_var`: the program is the text of this Python string in the template file (a Kernel
 * Tuner script's kernel_string = """..."""), not the whole file; NULL: the whole file. */
const char *space_template_var(const space *s);
/* `template_edit = function(text)`: the program's text made from the template's (after
 * template_var), once per load, in the space's sandbox. *out: the new text (caller frees), or
 * NULL where the space has no such function or has a per-configuration one (below). -1 with err
 * (file:line of the function) when it fails or returns no string. */
int space_edit_template(const space *s, const char *text, char **out, cterr *err);
/* `template_edit = function(text, p)` (a function that declares two parameters or more; one
 * declaring only text, vararg or not, is the once-per-run edit above): a code generator, called
 * per program with p, as Kernel Tuner calls a kernel_source function. space_edit_per_config:
 * whether the space's edit is one. space_edit_program calls it on text with p = configuration
 * cfg's parameters (the table constraints and block/grid get: integers and strings as they are,
 * runtime parameters too; SPACE_NO_CONFIG: an empty table), then the nd defines (names dn,
 * values dv: an integer where the whole value is one, else the string) set in it over them — a
 * further program's defines, or the reference's. *out: the text (caller frees; NULL without such
 * a function). -1 with err naming the function's file:line and the configuration (and the
 * defines) when it raises or returns anything but a string. */
#define SPACE_NO_CONFIG ((size_t)-1)
int space_edit_per_config(const space *s);
/* Whether the space has a once-per-run template_edit (function(text)). */
int space_edit_once(const space *s);
int space_edit_program(const space *s, const char *text, size_t cfg, int nd, const char *const *dn,
                       const char *const *dv, char **out, cterr *err);
/* A digest (64 hex) of the space's template_edit function: its source lines as its file holds
 * them (moving it in the file changes nothing; an edit of its lines, a comment too, does), and the
 * values of its upvalues that are numbers, strings, booleans or functions (followed the same
 * way: a local helper it calls); what a table holds (globals, a module's functions, a table of
 * settings) is not in it. */
void space_edit_digest(const space *s, char out[65]);
const configset *space_configs(const space *s); /* valid configurations, enumerated at load */
double space_enumerate_seconds(const space *s);

/* Extra NVRTC options from the space (`options = {...}`), after cutune's own. */
int space_noptions(const space *s);
const char *space_option(const space *s, int i);

/* Problems: `problems = { {N=8192, M=8192}, ... }` (or `problem = {...}` for one). */
int space_nproblems(const space *s);
const char *space_problem_key(const space *s, int prob);  /* "M=8192,N=8192": names sorted */
int space_problem_index(const space *s, const char *key); /* the problem of that key, -1 if none (hashed) */
int space_problem_nvars(const space *s, int prob);
const char *space_problem_var(const space *s, int prob, int j, int64_t *value);

/* A selection of problems (`--problem`): items separated by ';', each an index, a range A-B, a
 * comma list of them (0,3,5-9; "5-" runs to the last problem), sizes (anything with '=':
 * NAME=VALUE pairs in any order, all of a problem's or some, "N=8192,M=8192" or "M=4096",
 * selecting every problem with those values: space_problem_has) or "all"; NULL selects every
 * problem. space_select_match: 1 if sel selects prob, 0 if not, -1 with err for a malformed item
 * or an index past the last problem (prob -1: check only). space_select_check: also every item
 * must select something; *count: how many it selects. */
/* Whether problem prob has every NAME=VALUE of pairs (len bytes, comma separated, any order,
 * some or all of its dimensions: "N=8192,M=8192", "M=4096"): 1 or 0; -1 when pairs is not
 * such a list. */
int space_problem_has(const space *s, int prob, const char *pairs, size_t len);
int space_select_match(const space *s, const char *sel, int prob, cterr *err);
int space_select_check(const space *s, const char *sel, int *count, cterr *err);

/* Errors of a configuration's functions: what space_geometry, space_config_args,
 * space_config_tmaps, space_ref_config and space_launches fail with carries a code (cterr.code).
 * CTERR_SPACE: the space's own code failed — its function raised (error(), a nil indexed, the
 * sandbox's time, instruction or memory limit) or answered with the wrong type or count (a
 * string, no value, 12.5 threads, a scalar's value its type cannot hold, a tensor map's list of
 * the wrong length): a mistake in the space, which the engine records as space_error. Any other
 * code: the answer is well formed but over a limit of CUDA (a block over 1024 threads, a
 * dimension of 0 or over its maximum, dynamic shared memory past 227 KiB, a tensor map's box,
 * stride or swizzle outside what the driver encodes), which the engine records as invalid. */
/* Geometry of configuration cfg on problem prob, from the space's block/grid/shared functions. */
int space_geometry(space *s, size_t cfg, int prob, launch_geom *out, cterr *err);
/* The same at sizes no problem of the space has: nv variables (names, values), as the space's
 * problems name them (`cutune header`'s model of the grid at sizes never tuned). */
int space_geometry_at(space *s, size_t cfg, int nv, const char *const *names, const int64_t *vals, launch_geom *out,
                      cterr *err);
/* Kernel arguments for problem prob (sizes evaluated). *nargs <= MAX_ARGS. */
int space_args(space *s, int prob, argspec *out, int *nargs, cterr *err);
/* A buffer filled from the space's data (ct.input/ct.inout values or file; its argspec's fill is
 * FILL_DATA): argument i's bytes on problem prob (*len: its count times its element's size),
 * owned by the space; NULL for any other argument. space_data_digest: a digest (32 hex digits)
 * of all of problem prob's such data and of its symbols given data (ct.symbol values or file),
 * "" where it has none (the problem's check hash holds it, MPI ranks compare it). */
const void *space_arg_data(const space *s, int prob, int i, size_t *len);
const char *space_data_digest(const space *s, int prob);

/* Runtime parameters: ct.param(name, values, {runtime = true}) is not passed to NVRTC as -D;
 * it reaches the kernel through the value of a scalar argument that reads it (a size
 * expression naming it, "GROUPM", or function(n, p) reading p.GROUPM). Configurations that
 * differ only in runtime parameters compile to the same module (one compile, one cache entry).
 * At load every runtime parameter must be read by some scalar (else the load fails), and the
 * scalars that read one are marked per-configuration; space_args gives them the parameters'
 * first values. space_config_args: the values of those scalars for configuration cfg on
 * problem prob (*n of them, 0 for a space without runtime parameters), each replacing the
 * problem's argument of that index for this configuration's launches. */
int space_param_runtime(const space *s, int p);
int space_nruntime(const space *s);
int space_config_args(space *s, size_t cfg, int prob, argval *out, int *n, cterr *err);
/* Buffers typed by the configuration (ct.input(function(p) return p.float_type end, "n")): their
 * element types for configuration cfg on problem prob with the check's bounds in each (out:
 * MAX_ARGTYPES); returns how many (0 in a space without any). The problem's argspec of such a
 * buffer has the reference's type and typed > 0 (launch.h). space_types_describe: argument i's
 * types and bounds as text into b, for the check hash; 0 (nothing written) for a fixed type. */
int space_config_types(const space *s, size_t cfg, int prob, argtype *out);
int space_types_describe(const space *s, int i, dbuf *b);
/* ct.tensormap arguments (docs/SPACE.md, "Tensor maps"): what the GPU worker encodes for
 * configuration cfg on problem prob, *n of them (0 in a space without any); an error names the
 * declaration's file:line, the configuration and the problem. */
int space_config_tmaps(space *s, size_t cfg, int prob, tmapspec *out, int *n, cterr *err);
/* How many combinations the runtime parameters' values make (1 without any), and the valid
 * configurations that differ from cfg in runtime parameters only, cfg among them, in
 * enumeration order: up to max into out; returns how many there are (also past max). */
size_t space_runtime_combos(const space *s);
size_t space_runtime_siblings(const space *s, size_t cfg, size_t *out, size_t max);

/* Reference: `reference = { kernel = "...", template = optional, block = ..., grid = ... }`.
 * template defaults to the space's template; it is compiled with -DCUTUNE_REFERENCE=1 only. */
const char *space_ref_kernel(const space *s);
const char *space_ref_template_path(const space *s);
int space_ref_geometry(space *s, int prob, launch_geom *out, cterr *err);

/* reference.defines: the -DNAME=VALUE options of the reference's program (sorted), beside
 * -DCUTUNE_REFERENCE=1. reference.params: the reference is run from each configuration's own
 * program (compiled with the configuration's -D, so it sees them), its kernel a further name of the
 * configuration's compile job; the GPU worker runs it again only when the key changes (the values
 * of the parameters it names, and the problem). Its geometry functions take (n, p). */
int space_ref_ndefines(const space *s);
const char *space_ref_define(const space *s, int i);
int space_ref_per_config(const space *s);
int space_ref_config(space *s, size_t cfg, int prob, launch_geom *geom, uint64_t *key, cterr *err);

/* Tolerance for the output check: 0 means bitwise exact (`check = { tolerance = 1e-5 }`); each
 * output's own atol/rtol/reduce/mismatches travel in its argspec (the space's check.atol, rtol and
 * mismatches already folded in). check = false: timing only (unchecked). */
double space_tolerance(const space *s);
int space_unchecked(const space *s);
/* check = { kernel = "name", template = "path" }: the user's check kernel (NULL: none), compiled
 * once with -DCUTUNE_CHECK=1 from its template (default the space's), called for each checked
 * output as name(const T *out, const T *ref, unsigned long long n, unsigned long long *res) to add
 * its mismatches to res[0] and lower res[1] to the first (res = {0, ~0} before). */
const char *space_check_kernel(const space *s);
const char *space_check_template_path(const space *s);
/* symbols = { ct.symbol(...) }: how many, and problem prob's (out: MAX_SYMBOLS; data[k]: the
 * bytes of a SYMSRC_DATA symbol, owned by the space). Returns how many. */
int space_nsymbols(const space *s);

/* launches = { ct.launch {...}, ... }: a sequence of launches timed as one configuration (0: one
 * kernel, `kernel`). space_nprograms: how many programs a configuration compiles (1 + the
 * distinct defines of its launches); program p > 0 is the configuration's -D's with
 * space_program_defines' names set to their values (added where no parameter has the name), and
 * its kernel space_program_kernel. space_launches: each launch's program, arguments (indices into
 * the problem's) and geometry for configuration cfg on problem prob (kernel names are the
 * engine's to fill: lowered); returns how many. space_ref_args: the reference's arguments
 * (reference.args, indices; 0: all, in order). */
int space_nlaunches(const space *s);
int space_nprograms(const space *s);
const char *space_launch_kernel(const space *s, int k);
int space_launch_program(const space *s, int k);
int space_program_defines(const space *s, int prog, const char *const **names, const char *const **values);
const char *space_program_kernel(const space *s, int prog);
int space_launches(space *s, size_t cfg, int prob, launch_step *out, cterr *err);
int space_ref_args(const space *s, int8_t *out);
/* init = { ct.launch {...}, ... }: launches run once per problem, untimed, after its buffers are
 * filled and before the reference; what they leave in an input or inout is its initial contents
 * (an inout is restored to it before each run). One program: the template (after template_var and
 * template_edit) with -DCUTUNE_INIT=1, space_init_defines' -DNAME=VALUE (sorted) and the space's
 * options; its kernels space_init_kernel(0..n-1). space_init_steps: each launch's arguments
 * (indices) and geometry on problem prob (kernel names are the engine's to fill: lowered); returns
 * how many (0 without init). */
int space_ninit(const space *s);
const char *space_init_kernel(const space *s, int k);
int space_init_defines(const space *s, const char *const **names, const char *const **values);
int space_init_steps(const space *s, int prob, launch_step *out);
int space_symbols(const space *s, int prob, symspec *out, const void **data);
/* Bytes and flops per launch for derived figures; NAN where the space gives none. */
double space_bytes(space *s, int prob, cterr *err);
double space_flops(space *s, int prob, cterr *err);
/* cublas_sgemm = function(n) return M, N, K end: the problem's baseline, a cuBLAS SGEMM
 * (strict FP32) of that shape, timed by the GPU worker (the tables' "% cuBLAS"); or
 * cublas_gemmex = function(n) return M, N, K, "bf16" end: cublasGemmEx with inputs of that
 * type (bf16 or f16) and FP32 compute. 1 and mnk filled when the space gives one, 0 (mnk zero)
 * otherwise; space_gemm_type: the inputs' type (EL_F32 for cublas_sgemm). */
int space_sgemm(const space *s, int prob, int64_t mnk[3]);
elemtype space_gemm_type(const space *s);
/* arch (space_arch.c): the architecture configuration cfg needs, as the space gave it ("sm_80",
 * "sm_90a"), or NULL for any. space_config_arch: whether it runs on target ("sm_90", or an
 * --arch such as "sm_90a"): 1 with the architecture to compile it for in out (the target, or
 * sm_XYa when it needs sm_XYa's own instructions and the target is an X.Y one), 0 with why
 * filled when the target lacks what it needs. */
const char *space_config_needs(const space *s, size_t cfg);
int space_config_arch(const space *s, size_t cfg, const char *target, char *out, size_t outlen, char *why,
                      size_t whylen);
/* Objectives: "time" (the median) always first; others ("energy", or any numeric record field
 * of record_field) as listed, each minimised unless space_objective_max says maximised. */
int space_nobjectives(const space *s);
const char *space_objective(const space *s, int i);
int space_objective_max(const space *s, int i);
/* Per-configuration time limit for the GPU worker, seconds (`timeout`, default 10). */
double space_timeout(const space *s);

#endif
