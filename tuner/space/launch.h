/* launch: plain descriptions of what the GPU worker needs to run a kernel — argument specs
 * and launch geometry. Shared by the Lua space (which computes them), the coordinator
 * (which sends them) and the GPU worker (which executes them). No CUDA types here. */
#ifndef CUTUNE_LAUNCH_H
#define CUTUNE_LAUNCH_H

#include <stdint.h>

typedef enum { EL_F32, EL_F64, EL_I32, EL_I64, EL_U32, EL_U8, EL_F16, EL_BF16, EL_COUNT } elemtype;
const char *elemtype_name(elemtype t); /* "float", "double", "int", "int64", "uint", "uint8", "half", "bfloat16" */
int elemtype_parse(const char *s, elemtype *out); /* accepts the names above and float32/int32/... */
int elemtype_size(elemtype t);
int elemtype_is_float(elemtype t); /* float, double, half, bfloat16 */

typedef enum {
  ARG_INPUT,     /* device buffer filled with seeded random data (or the space's data), never compared */
  ARG_OUTPUT,    /* device buffer poisoned before each check, compared with the reference */
  ARG_INOUT,     /* filled like an input, restored before each run, compared like an output */
  ARG_SCALAR,    /* passed by value */
  ARG_TENSORMAP, /* a CUtensorMap of a buffer argument, passed by value (128 bytes, 64-aligned);
                    encoded per configuration by the GPU worker from the job's tmapspec */
} argkind;

/* FILL_DATA: an input's or inout's bytes come from the space (values or a file), sent with the
 * problem's setup after the symbols' data (gpu.h, gpu_problem.argdata). */
typedef enum { FILL_RANDOM = 0, FILL_ZERO, FILL_IOTA, FILL_DATA } fillkind;

#define ARG_NAME_MAX 32
typedef struct argspec {
  argkind kind;
  elemtype type;
  char name[ARG_NAME_MAX]; /* for messages: "out", "in", "arg3" */
  int64_t count;           /* buffers: elements */
  fillkind fill;
  double lo, hi; /* random fill range (default -1..1 floats, 0..1000 ints) */
  /* scalars: value, in the field that matches type */
  int64_t ival;
  double fval;
  /* outputs and inouts: how the check compares them with the reference (docs/SPACE.md, "The
   * check"): element by element, |a - r| <= atol + rtol * |r| when either is > 0 (else the
   * space's tolerance, or bitwise); or a reduction of each (reduce: sum, max or min over this
   * configuration's elements) within the same bounds; nocheck: not compared at all. */
  double atol, rtol;
  int32_t reduce; /* argreduce */
  int32_t nocheck;
  /* element-wise checks: up to this many elements may fail the comparison and the output still
   * passes (kernels whose variants legitimately differ on a few ties; 0: none may) */
  int64_t mismatches;
  /* a buffer whose element type is the configuration's (ct.input(function(p) ... end, ...)): 0
   * where the type is fixed; else the widest element any configuration (or the reference) gives
   * it, in bytes, which the worker allocates per element. type is then the reference's (the
   * problem's setup fills and runs the reference in it), and each job gives its own (argtype). */
  int32_t typed;
  int32_t pad_;
} argspec;

typedef enum { RED_NONE = 0, RED_SUM, RED_MAX, RED_MIN } argreduce;
/* A reduce check's name as a space spells it ("sum", "max", "min"; "" for none). */
static inline const char *argreduce_name(int r) {
  static const char *const names[] = {"", "sum", "max", "min"};
  return r >= RED_NONE && r <= RED_MIN ? names[r] : "";
}

/* A __constant__ or __device__ variable the worker fills in every module it loads (the
 * configuration's and the reference's), per problem: from the seeded fill (as buffers), from
 * bytes the space computed (a Lua table or a file: they follow in the setup), or from the
 * initial contents of a buffer argument. */
#define MAX_SYMBOLS 8
#define SYM_NAME_MAX 128
typedef enum { SYMSRC_FILL = 0, SYMSRC_DATA, SYMSRC_ARG } symsrc;
typedef struct symspec {
  char name[SYM_NAME_MAX];  /* in the cubin: a namespace's variable mangled (ns::v -> _ZN2ns1vE) */
  char shown[SYM_NAME_MAX]; /* as the space wrote it, for messages */
  elemtype type;
  int32_t src;   /* symsrc */
  int64_t count; /* elements */
  int32_t arg;   /* SYMSRC_ARG: the buffer argument */
  fillkind fill; /* SYMSRC_FILL, with lo and hi as a buffer's */
  double lo, hi;
  uint64_t data_len; /* SYMSRC_DATA: bytes (count elements of type) */
} symspec;

#define MAX_ARGS 32

/* The value of scalar argument `index` for one configuration, where the space computes it from
 * the configuration's runtime parameters (ct.param(..., {runtime = true})): it replaces the
 * problem's value of that argument for this configuration's launches only. */
typedef struct argval {
  int32_t index;
  int32_t pad_;
  int64_t ival;
  double fval;
} argval;
#define MAX_ARGVALS 8

/* The element type of a buffer typed by the configuration (argspec.typed) for one configuration,
 * and its check's bounds in that type (an output's atol/rtol may be given per type): the worker
 * fills an input or inout in it (the same seeded draws, rounded to the type), and compares an
 * output in double against the reference's, widened. */
typedef struct argtype {
  int32_t index; /* the buffer argument */
  int32_t type;  /* elemtype */
  double atol, rtol;
} argtype;
#define MAX_ARGTYPES 8

/* A tensor map (ct.tensormap, docs/SPACE.md): what cuTensorMapEncodeTiled needs, for one
 * configuration on one problem; the worker encodes it over the buffer's device address. dims
 * and box innermost first; strides in bytes, of dimensions 1..rank-1. swizzle: 0, 32, 64 or
 * 128 bytes. optional: a map the driver refuses (strides not multiples of 16 bytes ...) is
 * passed as 128 zero bytes instead of failing the configuration. */
#define TMAP_MAX_RANK 5
#define MAX_TMAPS 4
typedef struct tmapspec {
  int32_t arg;    /* the ARG_TENSORMAP argument it fills */
  int32_t buffer; /* the buffer argument it describes */
  int32_t type;   /* elemtype of the buffer */
  int32_t rank;
  int64_t dims[TMAP_MAX_RANK];
  int64_t strides[TMAP_MAX_RANK - 1];
  int32_t box[TMAP_MAX_RANK];
  int32_t swizzle;
  int32_t optional;
} tmapspec;

typedef struct launch_geom {
  unsigned grid[3], block[3];
  unsigned dyn_smem; /* bytes of dynamic shared memory */
} launch_geom;

/* One launch of a configuration's sequence (space.h: launches): which of the configuration's
 * programs holds its kernel (0: its own; 1..: one compiled with other macro values), the kernel's
 * lowered name there, its geometry and its arguments (indices into the problem's). */
#define MAX_LAUNCHES 4
#define LAUNCH_NAME_MAX 256
typedef struct launch_step {
  int32_t program;
  int32_t nargs;
  int8_t arg[MAX_ARGS];
  launch_geom geom;
  char kernel[LAUNCH_NAME_MAX];
} launch_step;

static inline unsigned launch_threads(const launch_geom *g) { return g->block[0] * g->block[1] * g->block[2]; }

#endif
