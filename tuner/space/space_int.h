/* space_int: the inside of the space unit, shared by its three files and nobody else.
 *
 *   space.c       the Lua state, the sandbox (restricted globals, require), loading a file,
 *                 protected calls, the accessors of space.h
 *   space_parse.c reading the table a space file returns into struct space (strict keys): the
 *                 top level; space_parse_params.c params and constraints;
 *                 space_parse_args.c args; space_read.c the typed readers they share
 *   space_eval.c  enumeration with constraints, geometry, bytes and flops; space_eval_args.c
 *                 argument sizes and values, per problem and per configuration (runtime parameters)
 *   space_limits.c memory, instruction, time and string-pattern bounds on the space's Lua code
 *   space_options.c the allow-list of NVRTC options a space may pass
 *   space_arch.c  the architecture each configuration needs (`arch`)
 *   space_problems.c problems: lists, shape sets (ct.product, ct.zip), generator functions
 *   space_launches.c launch sequences (launches) and init launches (init)
 *   space_types.c buffers whose element type is the configuration's
 *   space_edit.c  template_edit: once per run, or per program with p; the function's digest
 *
 * Lua values a space keeps (functions, compiled size expressions) live in the registry,
 * referenced by integer; everything else is copied into C memory at load. */
#ifndef CUTUNE_SPACE_INT_H
#define CUTUNE_SPACE_INT_H

#include <lua.h>

#include "space.h"

/* A value given either as a constant, a Lua function, or a size expression ("N*M"). */
typedef enum { SV_NONE = 0, SV_CONST, SV_FUNC, SV_EXPR } sv_kind;
typedef struct sp_value {
  sv_kind kind;
  int ncon;         /* SV_CONST: how many numbers (geometry: 1..3) */
  double con[3];    /* SV_CONST values */
  int ref;          /* SV_FUNC / SV_EXPR: registry reference */
  char *text;       /* SV_EXPR source, for messages */
  const char *file; /* where it was given, for messages (points into space's strings) */
  int line;
} sp_value;

#define SP_MAX_ARCH_NAMES 16 /* different answers of `arch` */

typedef struct sp_rule {
  int nnames;
  int idx[CS_MAX_PARAMS]; /* parameter indices it reads */
  int last;               /* the deepest of them: the rule is checked when it is bound */
  int fn_ref, tab_ref;    /* the function and the table it receives (only its params) */
  char *desc;
  const char *file;
  int line;
} sp_rule;

typedef struct sp_arg {
  argkind kind;
  elemtype type;
  char name[ARG_NAME_MAX];
  fillkind fill;
  double lo, hi;
  sp_value size;     /* buffers: element count; scalars: the value */
  int per_config;    /* a value (or a buffer's count) that reads a parameter: evaluated per configuration */
  uint64_t reads;    /* the parameters it reads (bit p) */
  double atol, rtol; /* the check of an output (ct.output options; 0: the space's check) */
  int reduce, nocheck;
  int64_t mismatches; /* elements allowed to differ; -1: the space's check.mismatches */
  /* ct.input/ct.inout filled from data (space_data.c; fill is then FILL_DATA): values (a table,
   * SV_CONST by registry reference, or function(n)) or a file (path resolved). A table's or a
   * file's bytes are the same on every problem: made once, in cdata (ccount elements, cdigest);
   * a function's are the problem's (sp_problem.argdata). */
  int data;
  sp_value values;
  char *path;
  dbuf cdata;
  int64_t ccount;
  char cdigest[33];
  /* a buffer typed by the configuration (space_types.c): ct.input(function(p) ... end, ...): the
   * function's registry reference, each valid configuration's elemtype, the reference's, the
   * types used (bit per elemtype) and the check's bounds per type where atol/rtol are tables
   * (tbound[0] atol, [1] rtol; NAN: not given; tbounds: bit 0 atol, bit 1 rtol given so) */
  int type_ref;
  unsigned char *ctype;
  elemtype rtype;
  unsigned tused;
  double tbound[2][EL_COUNT];
  int tbounds;
  const char *file; /* the ct.input call, for messages */
  int line;
} sp_arg;

typedef struct sp_tmap {        /* ct.tensormap (space_tmaps.c) */
  int arg, buffer;              /* its argument, the buffer it describes (args indices) */
  int whole[3];                 /* dims, strides, box: one function(p, n) giving the list */
  int n[3];                     /* entries of the list form (strides: 0, the packed default) */
  sp_value v[3][TMAP_MAX_RANK]; /* each a number, size expression or function(p, n) */
  sp_value swizzle;             /* bytes: 0 (SV_NONE), 32, 64, 128 */
  int optional;
  const char *file;
  int line;
} sp_tmap;

typedef struct sp_symbol { /* ct.symbol: a __constant__ / __device__ variable filled per problem */
  char name[SYM_NAME_MAX], shown[SYM_NAME_MAX];
  elemtype type;
  int src;         /* symsrc */
  sp_value count;  /* elements (SV_NONE: from the values, the file or the buffer) */
  sp_value values; /* SYMSRC_DATA from Lua: a list of numbers, or function(n) returning one */
  char *path;      /* SYMSRC_DATA from a file (.npy, else raw bytes of the type), resolved */
  int arg;         /* SYMSRC_ARG: args index */
  fillkind fill;
  double lo, hi;
  const char *file;
  int line;
} sp_symbol;

typedef struct sp_problem {
  int nvars;
  char **names; /* sorted */
  int64_t *vals;
  char *key;     /* "M=8192,N=8192" */
  argspec *args; /* nargs of them (space_eval_problems) */
  double bytes, flops;
  int64_t sgemm[3]; /* cublas_sgemm / cublas_gemmex: M, N, K of the cuBLAS baseline; 0 0 0: none */
  launch_geom ref_geom;
  symspec syms[MAX_SYMBOLS]; /* the symbols for this problem, their data (SYMSRC_DATA) alongside */
  dbuf symdata[MAX_SYMBOLS];
  int from_set; /* read from a shape set or a generator: a later repeat of it is skipped */
  dbuf *argdata;         /* nargs: the data of buffers filled by a values function (space_data.c), or NULL */
  char (*argdigest)[33]; /* nargs: their digests */
  char datadigest[33];   /* of every buffer's and symbol's data on this problem ("" without any): in the check hash */
  launch_geom *init_geom; /* ninit: the geometry of each init launch on this problem (NULL without init) */
} sp_problem;

typedef struct sp_geom {
  sp_value block, grid, shared; /* functions of (p, n) — or of (n) for the reference */
} sp_geom;

typedef struct sp_launch { /* launches = { ct.launch {...}, ... } */
  char *kernel;
  int nargs, arg[MAX_ARGS]; /* args indices */
  sp_geom geom;             /* functions of (p, n) */
  int program;              /* 0: the configuration's own program; else its define set's */
  int ndefines;             /* macro values of its program other than the configuration's */
  char **dname, **dvalue;
  const char *file;
  int line;
} sp_launch;

struct space {
  lua_State *L;
  char *path, *dir, *name, *template_path, *kernel;
  char *template_var; /* the kernel is this Python string of the template file (kernel_string = """...""") */
  int edit_ref;       /* template_edit = function(text): its registry reference; 0: none */
  int edit_per_config; /* ... function(text, p): called per program (space_edit.c) */
  const char *edit_file;
  int edit_line;
  char **files;
  int nfiles; /* interned file names that sp_value/sp_rule point to */
  const char *file;
  int line;        /* the ct.space call */
  char *chunkname; /* "@path" */
  int main_line;   /* last line the main chunk executed (see line_hook) */
  configset *cs;
  double enum_seconds;
  int64_t *pval[CS_MAX_PARAMS]; /* integer values of each parameter (a string parameter's: 0, 1, ...) */
  int pstr[CS_MAX_PARAMS];      /* the parameter's values are strings (a type name: -Dfloat_type=half) */
  int runtime[CS_MAX_PARAMS];   /* ct.param(..., {runtime = true}): an argument, not a -D */
  int nruntime;
  int rt_read[CS_MAX_PARAMS]; /* runtime parameters some argument value read (at load) */
  int nrules;
  sp_rule *rules;
  int nproblems;
  sp_problem *probs;
  int *pslot; /* the problems' keys hashed (space_problems.c): index + 1, 0 empty */
  size_t npslot;
  int nargs;
  sp_arg args[MAX_ARGS];
  sp_geom geom;
  char *ref_kernel, *ref_template_path;
  sp_geom ref_geom;
  sp_value bytes, flops, sgemm, gemmex;
  elemtype gemm_type; /* the baseline's A and B: EL_F32 (cublas_sgemm), EL_BF16 or EL_F16 (cublas_gemmex) */
  /* space_arch.c */
  int arch_ref, arch_all; /* arch = function(p): its registry reference; arch = "sm_XY": 1 + its index */
  const char *arch_file;
  int arch_line;
  unsigned char *arch_of; /* per valid configuration: 1 + index in arch_names; 0: any architecture */
  char *arch_names[SP_MAX_ARCH_NAMES];
  int narch_names;
  double tolerance, timeout;
  double atol, rtol;                        /* check = { atol =, rtol = }: the default of every output */
  int64_t mismatches;                       /* check = { mismatches = k }: the default of every output */
  int unchecked;                            /* check = false: timing only, records marked unchecked */
  char *check_kernel, *check_template_path; /* check = { kernel = ..., template = ... }: the user's check */
  int nsyms;
  sp_symbol syms[MAX_SYMBOLS];
  int ntmaps; /* ct.tensormap arguments (space_tmaps.c) */
  sp_tmap tmaps[MAX_TMAPS];
  int nref_defines; /* reference.defines: -DNAME=VALUE of the reference's program */
  char **ref_defines;
  int ref_per_config; /* reference.params: run from each configuration's own program */
  int nref_params, ref_params[CS_MAX_PARAMS];
  int ref_nargs, ref_args[MAX_ARGS]; /* reference.args: its arguments (0: all, in order) */
  int nlaunches, nprograms;          /* launches: a sequence timed as one configuration (0: one kernel) */
  sp_launch launches[MAX_LAUNCHES];
  int ninit; /* init: launches run once per problem before the reference (space_launches.c) */
  sp_launch init[MAX_LAUNCHES];
  int nobjectives;
  char **objectives;
  int *objmax; /* objmax[i]: maximised */
  int noptions;
  char **options;
  /* space_limits.c */
  size_t mem_used, mem_max;
  double instr_used, instr_max, seconds_max, entry_t0;
  unsigned long hooks;
  char oom_msg[512];
};

/* space.c */
const char *space_intern_file(space *s, const char *file);
/* Protected call of the function below nargs arguments on the stack; leaves nres results.
 * On error fills err with the Lua message (file:line: ...) and pops everything it pushed. */
int space_pcall(space *s, int nargs, int nres, cterr *err);
int space_resolve(space *s, const char *rel, char **out, dbuf *looked);

void space_line_hook(space *s, lua_State *L, lua_Debug *ar);

/* space_limits.c (see there): read the limits, the allocator (ud: the space), start an
 * entry into the space's code (resets its instruction count and clock), install the hook
 * (with_lines: also the line hook of space_load), wrap string patterns of table strtab, and
 * the message of the last refused allocation (NULL if none this entry). */
void space_limits_init(space *s);
void *space_limits_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
void space_limits_enter(space *s);
void space_limits_hook(space *s, int with_lines);
void space_limits_wrap_patterns(lua_State *L, int strtab);
const char *space_limits_oom(space *s);

/* space_options.c: 0 if opt is an NVRTC option a space may pass; else -1 with err saying
 * which options are allowed (the caller puts file:line in front). */
int space_option_check(const char *opt, cterr *err);

/* space_problems.c: the problems (sp_parse_problems, space_read.h) into s->probs, and the cap
 * on their number: $CUTUNE_MAX_PROBLEMS, default SPACE_MAX_PROBLEMS. */
#define SPACE_MAX_PROBLEMS 65536
long space_max_problems(void);
/* The index of the problem with key k, or -1 (through s->pslot). */
int space_problem_lookup(const space *s, const char *k);

/* space_parse.c: stack top is the wrapper table returned by ct.space */
int space_parse(space *s, cterr *err);

/* space_symbols.c: `symbols = { ct.symbol(...) }` read (t: the spec table), evaluated for every
 * problem once the arguments are (after space_eval_problems), and freed */
int space_parse_symbols(space *s, lua_State *L, int t, cterr *err);
int space_eval_symbols(space *s, cterr *err);
void space_symbols_free(space *s);

/* space_data.c: a buffer's or a symbol's data given as values or a file. sp_data_opts reads
 * `values` and `file` of the options table o (each one given adds 1 to *given); sp_data_make
 * makes the data on problem prob as elements of type t (at most max bytes) into out (empty),
 * *n of them; stream seeds math.random for a function (the argument's index; a symbol's past
 * them). space_eval_arg_data: every data-filled buffer on every problem (after
 * space_eval_problems: the counts they give or must match). */
#define SPACE_DATA_MAX ((int64_t)1 << 30) /* a problem's data-filled buffers together: one setup frame carries them */
int space_eval_arg_data(space *s, cterr *err);
void space_arg_data_free(space *s);

/* space_types.c: buffers whose element type is the configuration's (ct.input(function(p) ... end,
 * ...)): after the enumeration, every valid configuration's type (and the reference's) evaluated
 * into the problems' argspecs (their type the reference's, typed the widest size); freed. (Their
 * per-type bounds are read by space_types_bounds: space_read.h.) */
int space_types_eval(space *s, cterr *err);
void space_types_free(space *s);

/* space_launches.c: `init` and `launches` read (after args; the top-level kernel and geometry then
 * come from the first launch), the argument lists of launches and reference by name, and freed */
int space_parse_launches(space *s, lua_State *L, int t, cterr *err);
int space_parse_arg_list(space *s, lua_State *L, int idx, int *out, int *n, const char *what, cterr *err);
void space_launches_free(space *s);

/* space_arch.c: read `arch` from the space table at t (file:line of the ct.space call for
 * messages); evaluate it for every valid configuration (after the enumeration); free. */
int space_arch_parse(space *s, lua_State *L, int t, const char *file, int line, cterr *err);
int space_arch_eval(space *s, cterr *err);
void space_arch_free(space *s);

/* space_tmaps.c: a ct.tensormap argument read into args[s->nargs] and s->tmaps (idx: its table;
 * i: its position in args, 1-based); after the enumeration, every tensor map evaluated for the
 * first configuration on every problem (a bad declaration fails the load); freed. */
int space_parse_tmap(space *s, lua_State *L, int idx, int i, cterr *err);
int space_tmaps_check(space *s, cterr *err);
void space_tmaps_free(space *s);

/* space_eval.c */
void space_push_config(space *s, size_t cfg); /* p: every parameter of configuration cfg */
void space_push_param(space *s, int p, int v); /* value v of parameter p: its integer, or its string */
void space_push_problem(space *s, int prob);   /* n: problem prob's sizes, name -> integer */
/* What a value gave: n numbers (1..3), each as a double and, where it is one, as an integer. */
typedef struct sp_vres {
  int n;
  double d[3];
  int64_t i[3];
  int isint[3];
} sp_vres;
/* Evaluate v with the nargs values on top of the stack as arguments (popped). A size
 * expression sees the problem (the last argument) as its globals, over the sandbox. `what`
 * and `ctx` name the value and the (configuration, problem) in messages. */
int space_eval_value(space *s, const sp_value *v, int nargs, sp_vres *out, const char *what, const char *ctx,
                     cterr *err);
int space_eval_enumerate(space *s, cterr *err);
int space_eval_problems(space *s, cterr *err);      /* args, bytes, flops, reference geometry */
int space_eval_runtime_check(space *s, cterr *err); /* every runtime parameter reaches an argument */
int space_eval_buffer_max(space *s, cterr *err);    /* after enumeration: per-configuration buffers' allocation */
/* v (SV_NONE: NAN) on problem prob: one finite number >= 0, else err names what and the problem */
int space_eval_number(space *s, int prob, const sp_value *v, const char *what, double *out, cterr *err);
/* Geometry g (functions of (p, n)) of configuration cfg on problem prob; what names it ("launch 2"). */
int space_eval_config_geom(space *s, const sp_geom *g, size_t cfg, int prob, const char *what, launch_geom *out,
                           cterr *err);
void space_value_free(lua_State *L, sp_value *v);

/* space_eval_args.c */
/* Argument i on problem prob: its argspec (the element count or the scalar's value); one whose
 * value reads the configuration's parameters is marked per_config (space_config_args). */
int space_eval_arg(space *s, int prob, int i, cterr *err);

#endif
