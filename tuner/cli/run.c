/* run: `cutune run` — options and dispatch to the compile-only path (compile_only.c) or the
 * tuning loop (tune.c). See run.h. */
#include "run.h"

#include <getopt.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/compile_only.h"
#include "dist/dist.h"
#include "engine/exec.h"
#include "gpu/gpu.h"
#include "report/progress.h"
#include "store/record.h"
#include "report/report.h"
#include "search/score.h"
#include "search/strategy.h"
#include "engine/tune.h"
#include "search/transfer.h"

static const char run_usage[] =
    "usage: cutune run SPACE.lua [options]\n"
    "       cutune run --replay FILE [SPACE.lua] [options]   (see 'cutune run --replay FILE --help')\n"
    "\n"
    "Tune the space described by SPACE.lua. Each configuration is compiled with NVRTC (in\n"
    "parallel worker processes, with an on-disk cache), checked against the space's reference\n"
    "kernel on the GPU, timed, and appended to RESULTS/<device>/<space>.jsonl the moment it is\n"
    "measured. A run over a store that already holds a configuration (same template and\n"
    "options) does not measure it again, so an interrupted run resumes where it stopped.\n"
    "\n"
    "Without a GPU (or with --compile-only) the space is enumerated and its configurations\n"
    "compiled for --arch (every one of a space of up to " XSTR(TUNE_EXHAUSTIVE_MAX) ", else a sample of " XSTR(TUNE_DEFAULT_BUDGET) ": see --sample);\n"
    "a summary shows how many compiled, the range of registers, shared memory, spills and\n"
    "theoretical occupancy, and per occupancy limiter the configurations it caps least; -v or\n"
    "--csv FILE gives the whole table. --budget N compiles a sample of N, --time S stops\n"
    "handing out configurations after S seconds. Timing needs a GPU.\n"
    "\n"
    "options:\n"
    "  --results DIR       where measurement records go (default: results)\n"
    "  --kernel-path DIR   also look for the space's template (and reference template, symbol\n"
    "                      files, modules) in DIR, after the space's folder, its parent and the\n"
    "                      working directory; repeatable; $CUTUNE_KERNEL_PATH (DIR:DIR...) too\n"
    "  --arch sm_XY        target architecture without a GPU: one NVRTC supports (listed below)\n"
    "                      (default: the device's, or sm_90 when there is none)\n"
    "  --compile-only      do not use the GPU even if one is present\n"
    "  --sample N|all      compile-only: compile N configurations, not the whole space: first a few\n"
    "                      that together use every value of every parameter (so every branch a\n"
    "                      parameter selects in the template is compiled; this part comes whole\n"
    "                      even when N is smaller), then random others (--seed) up to N; 'all':\n"
    "                      every one, also of a space larger than " XSTR(TUNE_EXHAUSTIVE_MAX) " (default there: " XSTR(TUNE_DEFAULT_BUDGET) ")\n"
    "  --csv FILE          compile-only: also write the whole resource table as CSV (one row per\n"
    "                      configuration, the columns of cutune's records)\n"
    "  --batch N|auto      configurations per NVRTC program (default auto: as many as keep NVRTC's\n"
    "                      fixed cost per program, timed once, under 5 % of one's cost; 1: one\n"
    "                      program per configuration); see Batches below\n"
    "  --compile-timeout S seconds one configuration may take to compile before its worker is\n"
    "                      killed and it is recorded as compile_timeout (default 60). A later\n"
    "                      run compiles such a configuration again when its --compile-timeout\n"
    "                      is larger than the time that compile ran before it was killed, and\n"
    "                      once more at any limit after its first timeout (the machine may have\n"
    "                      been overloaded); after a second one it is skipped like any failure\n"
    "  --device N          GPU ordinal (default 0)\n"
    "  --devices all|LIST  tune on several GPUs of this host at once: every device, or ordinals\n"
    "                      such as 0,2,3. One GPU worker per device, one compile pool; devices of\n"
    "                      one model share one store and one search, each other model gets its own\n"
    "                      (results/<model>/...). Under mpirun/srun every rank but 0 uses all of its\n"
    "                      host's devices unless --devices says otherwise (docs/DISTRIBUTED.md)\n"
    "  --rank-timeout S    under MPI: a rank silent this long while it holds configurations is\n"
    "                      taken as lost and its configurations go to other ranks (default 120)\n"
    "  --jobs N            compile worker processes (default: number of CPUs)\n"
    "  --cache DIR         compile cache (default: $CUTUNE_CACHE, $XDG_CACHE_HOME/cutune or ~/.cache/cutune);\n"
    "                      a --cache that cannot be created or written is an error\n"
    "  --no-cache          compile everything again (NVRTC's own cache in the driver's compute\n"
    "                      cache, CUDA 12.9+, is turned off too: CUDA_CACHE_DISABLE=1); a\n"
    "                      module is still compiled once per run, its runtime-parameter\n"
    "                      siblings sharing it\n"
    "  --strategy NAME     search strategy: exhaustive random ils ga anneal bo bandit hybrid\n"
    "                      (default: the whole space when the budget covers it, walked in a\n"
    "                      seeded random order without repeats (random: racing then settles\n"
    "                      its reference early), else hybrid; the same random walk with\n"
    "                      --time alone on a space small enough to walk whole; exhaustive\n"
    "                      walks the enumeration's order)\n"
    "  --budget N          evaluations per problem (default: the whole space, or see below)\n"
    "  --time SECONDS      wall-clock limit per problem (default: none, or see below); a time\n"
    "                      limit without --budget (this one, or the default search's) also makes\n"
    "                      BO prefer configurations predicted cheap to compile and measure\n"
    "                      (expected improvement per second, the preference fading over the\n"
    "                      budget: docs/SEARCH.md); when it is\n"
    "                      spent, compiles still queued or running are given up at once (what is\n"
    "                      on a GPU finishes and is recorded)\n"
    "  --no-runtime-sweep  measure only what the strategy proposes (default: see runtime\n"
    "                      parameters below)\n"
    "  --no-overlap        tune the selected problems one after the other (default: side by side,\n"
    "                      see Overlap below)\n"
    "  --seed N            seed for the strategy and the input data (default 1)\n"
    "  --problem SEL       tune these problems only (repeatable): an index (0), a range (0-9; 1- to\n"
    "                      the last), a list (0,3,5-9), sizes in any order, all of a problem's or\n"
    "                      some (\"N=8192,M=8192\"; \"M=4096\": every problem with M=4096) or all\n"
    "                      (default: all)\n"
    "  --top N             rows in the table of best configurations (default 10)\n"
    "  --min-samples N     timed launches at least (default 10, but as few as 3 where 10 would\n"
    "                      take more than 12 ms of launches; a value given here is kept exactly)\n"
    "  --max-samples N     timed launches at most (default 200)\n"
    "  --rse X             stop timing once the relative standard error is below X (default 0.005)\n"
    "  --race X|off        racing: stop timing a configuration (recorded 'raced') once every one of\n"
    "                      its samples is slower than the --top-th best so far by more than the\n"
    "                      fraction X and by more than its noise explains (default 0.02; 'off':\n"
    "                      time every configuration in full); see Racing below\n"
    "  --race-samples N    racing: samples before the first test (default 3, at least 2)\n"
    "  --race-early F|off  racing before --top configurations are timed in full: against F times\n"
    "                      the best time so far (default 3; 'off': nothing raced before)\n"
    "  --energy-top N      energy objective: the second pass measures energy for at most the N\n"
    "                      fastest configurations per problem (default 8) ...\n"
    "  --energy-within X   ... that are within X of the best time (default 0.10: 10 %)\n"
    "  --no-progress       plain progress lines even on a terminal\n"
    "  -q, --quiet         only the final tables: no progress, no per-problem notes\n"
    "  -v, --verbose       a line per configuration as it finishes (status, resources or the\n"
    "                      message), every failure listed in full under the table, and without a\n"
    "                      GPU the whole resource table instead of its summary\n"
    "  -h, --help          this text\n"
    "\n"
    "shape sets (a run that selects " XSTR(TUNE_SET_MIN) " problems or more; see below):\n"
    "  --no-transfer       search every shape from a cold start, in the listed order\n"
    "  --transfer          seed the searches of a run of fewer problems too (from the shapes tuned\n"
    "                      before, in the store or in the run)\n"
    "  --transfer-near K   seeds from the K nearest shapes tuned before (default " XSTR(TUNE_TRANSFER_NEAR) ")\n"
    "  --transfer-per P    ... the best P kernels of each (default " XSTR(TUNE_TRANSFER_PER) ")\n"
    "  --patience N        a seeded search ends after N evaluations in a row without a 0.5 % gain\n"
    "                      (default " XSTR(TUNE_PATIENCE) " proposals, times the runtime sweep's values; 0: the budget alone;\n"
    "                      --strategy exhaustive: 0)\n"
    "  --order nearest|listed  tuning order (default with transfer: nearest, the first selected\n"
    "                      problem first, then always the shape nearest to those tuned before)\n"
    "  --no-cross          skip the cross-measurement\n"
    "  --cross             cross-measure a run of fewer problems too (two or more)\n"
    "  --cross-only        only the cross-measurement, over what the store holds (searches done before)\n"
    "  --cross-top N       the best N kernels of every shape are cross-measured (default " XSTR(TUNE_CROSS_TOP) ")\n"
    "  --cross-max N       ... at most N kernels in all, those best on most shapes first (default " XSTR(TUNE_CROSS_MAX) ")\n"
    "\n"
    "Spaces too large to exhaust: without --budget and --time, a space of more than\n"
    "" XSTR(TUNE_EXHAUSTIVE_MAX) " valid configurations gets a budgeted search on each problem: the default\n"
    "strategy (hybrid) with --budget " XSTR(TUNE_DEFAULT_BUDGET) " --time " XSTR(TUNE_DEFAULT_TIME) ", whichever ends first (the matmul\n"
    "space, lua/matmul_space.lua: 196,095 configurations, at most " XSTR(TUNE_DEFAULT_TIME) " s per problem). Only what the\n"
    "strategy asks for is compiled: the compile pool runs at most 2 x --jobs configurations\n"
    "ahead of the GPU (2 x --jobs + 4; (batch + 1) x --jobs + 4 where it batches; counted in\n"
    "modules where a proposal's runtime siblings share one), in parallel NVRTC processes. The\n"
    "end of a run says how busy the pool's workers were. Give --budget or --time (or --strategy\n"
    "exhaustive) to override; --budget larger than the space measures all of it. --time\n"
    "alone on such a space searches (hybrid) until the time is up.\n"
    "\n"
    "Runtime parameters (ct.param(..., {runtime = true}): kernel arguments, not -D, docs/SPACE.md):\n"
    "configurations that differ only in them share one compile. When the strategy proposes one,\n"
    "the run also measures it at every other value of them (up to " XSTR(TUNE_SWEEP_MAX) " combinations), charged to\n"
    "the budget like any evaluation but costing GPU time only; the default budget grows by as\n"
    "many (one runtime parameter of 3 values: --budget 3000 --time " XSTR(TUNE_DEFAULT_TIME) "). --no-runtime-sweep turns\n"
    "it off: the strategy then chooses the runtime values too, one configuration at a time.\n"
    "\n"
    "Batches (docs/ARCHITECTURE.md, Compilation): one NVRTC program compiles several configurations\n"
    "of a template that includes nothing, each in a namespace of its own with its kernel renamed,\n"
    "so NVRTC's fixed cost per program (its built-in headers, NVVM's and ptxas' start) is paid\n"
    "once. A configuration its batch cannot speak for (a compile error, a crash, a timeout) is\n"
    "compiled again alone, so every record is its own; each keeps a cache entry of its own, and\n"
    "--compile-timeout holds per configuration (a batch of N may take N times as long). Where\n"
    "the members of a failed batch all compile alone, the template cannot be batched and the run\n"
    "goes on without batches. --compile-only ends with how many programs it ran.\n"
    "\n"
    "Overlap (docs/ARCHITECTURE.md, The tuning loop): a run of 2 to " XSTR(EXEC_MAX_PROBLEMS) " problems that is not a shape\n"
    "set and has no --time tunes them side by side: every device holds all of them set up, each\n"
    "problem has its own strategy, store records and racing reference, and a configuration that\n"
    "several of them propose (all of them, in a walk of the whole space) is compiled once and measured on\n"
    "each in turn, so the GPU measures one problem while the compiles of the next configurations\n"
    "run. Each problem's line gives its time from the start to its last record; the 'overlap' line\n"
    "gives the whole. Problems whose buffers together exceed half a device's memory, and runs with\n"
    "--time (a limit per problem), go one after the other, as --no-overlap does.\n"
    "\n"
    "Racing (docs/MEASURE.md): once --top configurations of a problem are timed in full, each\n"
    "next one is tested after --race-samples samples and after each chunk of samples: raced out\n"
    "when its fastest sample is slower than the --top-th best time x (1 + X) and the mean's excess\n"
    "over that bound is beyond the 99.9 % one-sided Student t bound of its samples' spread.\n"
    "Before that, the same test runs against --race-early F times the best time so far (the\n"
    "first configuration of a problem has none and is timed in full). A launch of 1 ms or more\n"
    "whose check launch took over twice the bound is tested one sample sooner (that launch counts\n"
    "as one; 2 samples at least). Every configuration is checked first, as always; a raced one\n"
    "keeps the time of its few samples (the search learns it), its record says 'raced_above' (the\n"
    "bound) and 'race_ref' (kth or best), and the tables count it, never as a full measurement.\n"
    "What is within X of the run's --top-th best (with energy among the objectives, of the\n"
    "--energy-top-th) is timed in full, unless it came before there was one and took more than F\n"
    "times the best then.\n"
    "\n"
    "Shape sets (docs/SPACE.md: lists, ct.product, ct.zip, generator functions): a run that selects\n"
    "" XSTR(TUNE_SET_MIN) " problems or more tunes them as a set. Each shape gets the budget of one problem (--budget,\n"
    "--time, or the default above), but its search starts from the best kernels of the nearest\n"
    "shapes tuned before it (in the store, or earlier in the run: transfer), measured first, and ends\n"
    "once --patience evaluations in a row gain less than 0.5 %, so a shape near others costs a\n"
    "fraction of a cold one. Then the cross-measurement: the best --cross-top kernels of every shape,\n"
    "each measured on every shape, ordinary records (what cutune header needs to ship a small set of\n"
    "kernels that covers them all, with a rule for sizes never tuned: docs/HEADER.md). The run ends\n"
    "with a table of what each shape cost: seeds and the shapes they came from, configurations\n"
    "measured and answered from the store, GPU and wall seconds, its best, whether a seed was it.\n"
    "The per-problem tables are left out for a set (-v prints them). For a large set bound each shape\n"
    "with --time (and --budget): the first costs that, the others about --patience evaluations more\n"
    "than their seeds unless they keep improving. A run of fewer problems (--problem 0; a space of\n"
    "four) is as before, each cold, in the listed order, with its tables, unless --transfer or --cross.\n"
    "\n"
    "Where the time went: each problem ends with a line 'time: the GPU worked N % of it (M ms\n"
    "per configuration ...); a compile took S s on average'. Well below 100 % the GPU waited for\n"
    "NVRTC: the rate is bound by --jobs / S (a warm --cache helps); near 100 % the GPU is the\n"
    "bound (--min-samples, --rse). Every record carries compile_ms and measure_ms. A space with\n"
    "runtime parameters (ct.param(..., {runtime = true}): kernel arguments, not -D) adds\n"
    "'modules: C configurations from M compiled modules': those C needed only M compiles.\n"
    "\n"
    "limits on a space's Lua code (environment): CUTUNE_LUA_MEMORY (MiB, default 512),\n"
    "CUTUNE_LUA_INSTRUCTIONS (per call from cutune, default 1e9), CUTUNE_LUA_SECONDS (per call,\n"
    "default 60), CUTUNE_MAX_CONFIGS (valid configurations, default 4194304); input files:\n"
    "CUTUNE_MAX_INPUT_MB (results and cache files, after gunzip, default 256). See docs/SPACE.md.\n"
    "\n"
    "exit status (failed configurations are data, kept in the store and the tables; the status\n"
    "tells a script what happened):\n"
    "  0    every configuration compiled (and, on a GPU, ran and matched the reference)\n"
    "  1    the run could not run: bad space, reference does not compile, store in use, ...\n"
    "  2    bad command line\n"
    "  3    some configurations failed (compile error, an error in the space's own geometry or\n"
    "       argument functions, wrong result, fault, timeout; invalid, over a limit, is data)\n"
    "  4    no configuration succeeded\n"
    "  130  interrupted (Ctrl-C or SIGTERM); what finished is in the store: run again to resume\n";

/* The exit status of a run that ran (see run_usage). */
static int outcome_status(const run_outcome *out) {
  if (out->interrupted) return 130;
  if (out->configs && out->failed == out->configs) return 4;
  if (out->failed) return 3;
  return 0;
}

static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "cutune run: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, " (see 'cutune run --help')\n");
  va_end(ap);
  return 2;
}

/* --problem's items, ';'-separated (static: the options point into it for the whole run) */
static dbuf problems;

/* The numeric options: name, what a value must be, its bounds; the value lands in run_opts
 * through set_number. */
typedef struct num_opt {
  int id;
  const char *name, *need;
  double lo, hi; /* inclusive, unless open */
  int open_lo, open_hi, integer;
} num_opt;

enum {
  O_RESULTS = 256,
  O_ARCH,
  O_COMPILE_ONLY,
  O_DEVICE,
  O_JOBS,
  O_CACHE,
  O_NO_CACHE,
  O_STRATEGY,
  O_BUDGET,
  O_TIME,
  O_SEED,
  O_PROBLEM,
  O_TOP,
  O_MINS,
  O_MAXS,
  O_RSE,
  O_NOPROG,
  O_ETOP,
  O_EWITHIN,
  O_SAMPLE,
  O_COMPILE_TIMEOUT,
  O_DEVICES,
  O_RANK_TIMEOUT,
  O_NO_SWEEP,
  O_CSV,
  O_KPATH,
  O_TRANSFER,
  O_NO_TRANSFER,
  O_NEAR,
  O_PER,
  O_PATIENCE,
  O_ORDER,
  O_CROSS,
  O_NO_CROSS,
  O_CROSS_ONLY,
  O_CROSS_TOP,
  O_CROSS_MAX
};
enum { O_RACE = O_CROSS_MAX + 1, O_RACE_SAMPLES, O_RACE_EARLY, O_BATCH, O_NO_OVERLAP };

static const num_opt num_opts[] = {
    {O_DEVICE, "--device", "a GPU ordinal (0, 1, ...)", 0, 1e6, 0, 0, 1},
    {O_RANK_TIMEOUT, "--rank-timeout", "a positive number of seconds", 0, 1e9, 1, 0, 0},
    {O_JOBS, "--jobs", "a number of processes from 1 to 1024", 1, 1024, 0, 0, 1},
    {O_BUDGET, "--budget", "a positive number of evaluations", 1, 1e15, 0, 0, 1},
    {O_TIME, "--time", "a positive number of seconds", 0, 1e12, 1, 0, 0},
    {O_SEED, "--seed", "a non-negative integer", 0, 9.2e18, 0, 0, 1},
    {O_TOP, "--top", "a positive integer", 1, 1e9, 0, 0, 1},
    {O_MINS, "--min-samples", "an integer from 1 to 100000", 1, 100000, 0, 0, 1},
    {O_MAXS, "--max-samples", "an integer from 1 to 100000", 1, 100000, 0, 0, 1},
    {O_RSE, "--rse", "a fraction between 0 and 1 (e.g. 0.005)", 0, 1, 1, 1, 0},
    {O_ETOP, "--energy-top", "a positive number of configurations", 1, 100000, 0, 0, 1},
    {O_EWITHIN, "--energy-within", "a fraction >= 0 (0.1 is 10 %)", 0, 1e9, 0, 0, 0},
    {O_SAMPLE, "--sample", "a positive number of configurations or 'all'", 1, 1e15, 0, 0, 1},
    {O_COMPILE_TIMEOUT, "--compile-timeout", "a number of seconds from 0 to 86400", 0, 86400, 1, 0, 0},
    {O_NEAR, "--transfer-near", "a number of shapes from 1 to 64", 1, 64, 0, 0, 1},
    {O_PER, "--transfer-per", "a number of kernels from 1 to " XSTR(TRANSFER_KEEP), 1, TRANSFER_KEEP, 0, 0, 1},
    {O_PATIENCE, "--patience", "a number of evaluations >= 0 (0: no early end)", 0, 1e15, 0, 0, 1},
    {O_CROSS_TOP, "--cross-top", "a number of kernels from 1 to " XSTR(TRANSFER_KEEP), 1, TRANSFER_KEEP, 0, 0, 1},
    {O_CROSS_MAX, "--cross-max", "a number of kernels from 1 to 4096", 1, 4096, 0, 0, 1},
    {O_RACE, "--race", "a margin as a fraction from 0 to 10 (0.02 is 2 %) or 'off'", 0, 10, 0, 0, 0},
    {O_RACE_SAMPLES, "--race-samples", "an integer from 2 to 256", 2, 256, 0, 0, 1},
    {O_RACE_EARLY, "--race-early", "a factor from 1.5 to 1000 or 'off'", 1.5, 1000, 0, 0, 0},
    {O_BATCH, "--batch", "'auto' or a number of configurations from 1 to " XSTR(COMPILE_BATCH_MAX), 1,
     COMPILE_BATCH_MAX, 0, 0, 1},
};

static void set_number(run_opts *o, int id, double v) {
  switch (id) {
  case O_DEVICE: o->device = (int)v; break;
  case O_RANK_TIMEOUT: o->rank_timeout = v; break;
  case O_JOBS: o->jobs = (int)v; break;
  case O_BUDGET: o->budget = (long)v; break;
  case O_TIME: o->time_limit = v; break;
  case O_SEED: o->seed = (uint64_t)v; break;
  case O_TOP: o->top = (int)v; break;
  case O_MINS: o->min_samples = (int)v, o->min_samples_given = 1; break;
  case O_MAXS: o->max_samples = (int)v; break;
  case O_RSE: o->rse = v; break;
  case O_ETOP: o->energy_top = (int)v; break;
  case O_EWITHIN: o->energy_within = v; break;
  case O_SAMPLE: o->sample = (long)v; break;
  case O_COMPILE_TIMEOUT: o->compile_timeout = v; break;
  case O_NEAR: o->transfer_near = (int)v; break;
  case O_PER: o->transfer_per = (int)v; break;
  case O_PATIENCE: o->patience = (long)v; break;
  case O_CROSS_TOP: o->cross_top = (int)v; break;
  case O_CROSS_MAX: o->cross_max = (int)v; break;
  case O_RACE: o->race_margin = v; break;
  case O_RACE_SAMPLES: o->race_samples = (int)v; break;
  case O_RACE_EARLY: o->race_early = v; break;
  case O_BATCH: o->batch = (int)v; break;
  }
}
/* A numeric option's value: -1 when id is not one; else 0, or the exit status of a bad value. */
static int number_option(run_opts *o, int id, const char *v) {
  for (size_t i = 0; i < sizeof num_opts / sizeof num_opts[0]; i++) {
    const num_opt *n = &num_opts[i];
    if (n->id != id) continue;
    cterr err;
    long l = 0;
    double d = 0;
    int bad = n->integer ? parse_long(v, &l, n->name, &err) != 0 : parse_double(v, &d, n->name, &err) != 0;
    if (n->integer) d = (double)l;
    bad = bad || (n->open_lo ? !(d > n->lo) : d < n->lo) || (n->open_hi ? !(d < n->hi) : d > n->hi);
    if (bad) return bad_usage("%s needs %s, got '%s'", n->name, n->need, v);
    set_number(o, id, d);
    return 0;
  }
  return -1;
}

/* --strategy's value: 0, or the exit status of a name that is no strategy. */
static int strategy_option(run_opts *o, const char *v) {
  const char *const *names = strategy_names();
  for (int i = 0; names[i]; i++)
    if (!strcmp(names[i], v)) {
      o->strategy = v;
      return 0;
    }
  char list[256] = "";
  for (int i = 0; names[i]; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "", names[i]);
  return bad_usage("--strategy '%s' is not a strategy (strategies: %s)", v, list);
}

/* A numeric option's word instead of a number (--sample all, --race off, --batch auto): 1 when
 * it was one. */
static int keyword_option(run_opts *o, int id, const char *v) {
  if (!v) return 0;
  if (id == O_SAMPLE && !strcmp(v, "all")) o->sample = RUN_SAMPLE_ALL;
  else if (id == O_RACE && !strcmp(v, "off")) o->race_margin = -1;
  else if (id == O_RACE_EARLY && !strcmp(v, "off")) o->race_early = 0;
  else if (id == O_BATCH && !strcmp(v, "auto")) o->batch = 0;
  else return 0;
  return 1;
}

/* The command line into o: -1 to go on, else the exit status (0 after --help, 2 for bad usage). */
static int parse_options(int argc, char **argv, run_opts *o) {
  /* two options a line: */
  /* clang-format off */
  static const struct option longopts[] = {
      {"results", required_argument, 0, O_RESULTS}, {"arch", required_argument, 0, O_ARCH},
      {"compile-only", no_argument, 0, O_COMPILE_ONLY}, {"device", required_argument, 0, O_DEVICE},
      {"jobs", required_argument, 0, O_JOBS}, {"cache", required_argument, 0, O_CACHE},
      {"no-cache", no_argument, 0, O_NO_CACHE}, {"strategy", required_argument, 0, O_STRATEGY},
      {"budget", required_argument, 0, O_BUDGET}, {"time", required_argument, 0, O_TIME},
      {"seed", required_argument, 0, O_SEED}, {"problem", required_argument, 0, O_PROBLEM},
      {"top", required_argument, 0, O_TOP}, {"min-samples", required_argument, 0, O_MINS},
      {"max-samples", required_argument, 0, O_MAXS}, {"rse", required_argument, 0, O_RSE},
      {"energy-top", required_argument, 0, O_ETOP}, {"energy-within", required_argument, 0, O_EWITHIN},
      {"no-progress", no_argument, 0, O_NOPROG}, {"sample", required_argument, 0, O_SAMPLE},
      {"compile-timeout", required_argument, 0, O_COMPILE_TIMEOUT}, {"quiet", no_argument, 0, 'q'},
      {"devices", required_argument, 0, O_DEVICES}, {"rank-timeout", required_argument, 0, O_RANK_TIMEOUT},
      {"no-runtime-sweep", no_argument, 0, O_NO_SWEEP}, {"csv", required_argument, 0, O_CSV},
      {"kernel-path", required_argument, 0, O_KPATH},
      {"transfer", no_argument, 0, O_TRANSFER}, {"no-transfer", no_argument, 0, O_NO_TRANSFER},
      {"transfer-near", required_argument, 0, O_NEAR}, {"transfer-per", required_argument, 0, O_PER},
      {"patience", required_argument, 0, O_PATIENCE}, {"order", required_argument, 0, O_ORDER},
      {"cross", no_argument, 0, O_CROSS}, {"no-cross", no_argument, 0, O_NO_CROSS},
      {"cross-only", no_argument, 0, O_CROSS_ONLY}, {"cross-top", required_argument, 0, O_CROSS_TOP},
      {"cross-max", required_argument, 0, O_CROSS_MAX},
      {"race", required_argument, 0, O_RACE}, {"race-samples", required_argument, 0, O_RACE_SAMPLES},
      {"race-early", required_argument, 0, O_RACE_EARLY},
      {"batch", required_argument, 0, O_BATCH}, {"no-overlap", no_argument, 0, O_NO_OVERLAP},
      {"verbose", no_argument, 0, 'v'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  /* clang-format on */
  dbuf_reset(&problems);
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":qvh", longopts, NULL)) != -1) {
    if (keyword_option(o, c, optarg)) continue;
    int st = number_option(o, c, optarg);
    if (st >= 0) {
      if (st) return st;
      continue;
    }
    switch (c) {
    case O_RESULTS: o->results_dir = optarg; break;
    case O_KPATH: space_kernel_path_add(optarg); break;
    case O_ARCH:
      if (!compile_arch_supported(optarg))
        return bad_usage(
            "--arch '%s' is not an architecture NVRTC %s supports (it supports: %s; an 'a' or 'f' "
            "suffix, as in sm_90a, is accepted too)",
            optarg, compile_nvrtc_version(), compile_supported_archs());
      o->arch = optarg;
      break;
    case O_COMPILE_ONLY: o->compile_only = 1; break;
    case O_DEVICES: o->devices = optarg; break;
    case O_CACHE: o->cache_dir = optarg; break;
    case O_NO_CACHE: o->no_cache = 1; break;
    case O_STRATEGY:
      if ((st = strategy_option(o, optarg)) != 0) return st;
      break;
    case O_PROBLEM: /* repeatable: the items are kept together, ';'-separated (job_problem_selected) */
      dbuf_printf(&problems, "%s%s", problems.len ? ";" : "", optarg);
      o->problem = problems.data;
      break;
    case O_NOPROG: o->progress_tty = 0; break;
    case O_NO_SWEEP: o->no_runtime_sweep = 1; break;
    case O_NO_OVERLAP: o->no_overlap = 1; break;
    case O_CSV: o->csv = optarg; break;
    case O_TRANSFER: o->transfer = 1; break;
    case O_NO_TRANSFER: o->transfer = -1; break;
    case O_ORDER:
      if (strcmp(optarg, "listed") && strcmp(optarg, "nearest"))
        return bad_usage("--order must be listed or nearest, got '%s'", optarg);
      o->listed = !strcmp(optarg, "listed");
      break;
    case O_CROSS: o->cross = 1; break;
    case O_NO_CROSS: o->cross = -1; break;
    case O_CROSS_ONLY: o->cross = 2; break;
    case 'q': o->quiet = 1; break;
    case 'v': o->verbose = 1; break;
    case 'h':
      fputs(run_usage, stdout);
      printf("\narchitectures NVRTC %s supports here (--arch): %s\n", compile_nvrtc_version(),
             compile_supported_archs());
      return 0;
    case ':': return bad_usage("option '%s' needs a value", argv[optind - 1]);
    default: return bad_usage("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (o->min_samples > o->max_samples) return bad_usage("--min-samples is larger than --max-samples");
  if (optind >= argc) return bad_usage("no space file given");
  if (optind + 1 < argc) return bad_usage("one space file at a time (extra argument '%s')", argv[optind + 1]);
  o->space_path = argv[optind];
  return -1;
}

/* Where the run measures: the GPU ordinals (*nord of them), or why it compiles only (*why, NULL
 * when it measures; whybuf holds the text). -1 to go on, else the exit status. *unprobed: 1
 * where the devices were not counted (the plain run on device 0: its GPU worker's start says
 * whether there is one, run_outcome.no_device, and the run then compiles only), 0 otherwise. */
static int choose_devices(const run_opts *o, const char *self, int ranks, int *ordinals, int *nord, const char **why,
                          char *whybuf, size_t whylen, int *unprobed) {
  cterr err = {0};
  *nord = 0;
  *why = NULL;
  *unprobed = 0;
  if (ranks > 1 && dist_launched_rank() == 0) return -1; /* an MPI run's coordinator: the other ranks measure */
  if (o->compile_only) {
    *why = "--compile-only was given";
    return -1;
  }
  if (!o->devices && ranks <= 1 && o->device == 0 && !o->sample && !o->csv) {
    ordinals[(*nord)++] = 0, *unprobed = 1;
    return -1;
  }
  int n = gpu_count(self, &err);
  if (n <= 0) {
    snprintf(whybuf, whylen, "no CUDA device found (%s)", n < 0 || err.msg[0] ? err.msg : "the driver reports none");
    *why = whybuf;
  } else if (o->devices || ranks > 1) {
    if (exec_parse_devices(o->devices ? o->devices : "all", n, ordinals, EXEC_MAX_DEVICES, nord, &err) != 0) {
      fprintf(stderr, "cutune run: %s\n", err.msg);
      return 2;
    }
  } else if (o->device >= n) {
    fprintf(stderr, "cutune: --device %d: this machine has %d CUDA device%s\n", o->device, n, n == 1 ? "" : "s");
    return 2;
  } else {
    ordinals[(*nord)++] = o->device;
  }
  return -1;
}

/* A parameter the template never names is most likely misspelt: say so before compiling. */
static void warn_unused_params(const space *s) {
  compile_source src;
  compile_source_init(&src);
  cterr err;
  dbuf warn;
  dbuf_init(&warn);
  if (job_load_source(s, &src, &err) == 0) job_check_params(s, &src, &warn); /* else the run says why */
  if (warn.len) fputs(warn.data, stderr);
  dbuf_free(&warn);
  compile_source_free(&src);
}

int run_main(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--replay") || !strncmp(argv[i], "--replay=", 9)) return search_replay_main(argc, argv);

  run_opts o = {.results_dir = "results",
                .device = 0,
                .seed = 1,
                .top = 10,
                .min_samples = 10,
                .max_samples = 200,
                .rse = 0.005,
                .progress_tty = -1,
                .energy_top = 8,
                .energy_within = 0.10,
                .compile_timeout = 60,
                .transfer_near = TUNE_TRANSFER_NEAR,
                .transfer_per = TUNE_TRANSFER_PER,
                .patience = -1,
                .cross_top = TUNE_CROSS_TOP,
                .cross_max = TUNE_CROSS_MAX};
  o.race_margin = 0.02, o.race_samples = 3, o.race_early = 3; /* racing (docs/MEASURE.md) */
  int st = parse_options(argc, argv, &o);
  if (st >= 0) return st;
  cterr err = {0};
  space *s = NULL;
  if (space_load(o.space_path, &s, &err) != 0) {
    fprintf(stderr, "cutune: %s\n", err.msg);
    return 1;
  }
  int nselected = 0;
  if (job_problem_selection(s, &o, &nselected, &err) != 0) {
    fprintf(stderr, "cutune run: %s\n", err.msg);
    space_free(s);
    return 2;
  }
  warn_unused_params(s);
  char *self = self_exe_path();
  if (!self) {
    fprintf(stderr, "cutune: cannot find its own executable (/proc/self/exe) to start workers\n");
    space_free(s);
    return 1;
  }
  int ranks = dist_launched();
  if (ranks > 1 && o.compile_only && dist_launched_rank() > 0) { /* rank 0 compiles; the others have nothing to do */
    free(self), space_free(s);
    return 0;
  }
  if (ranks > 1 && o.compile_only) ranks = 1;
  const char *why = NULL;
  char whybuf[CTERR_MAX + 64];
  int ordinals[EXEC_MAX_DEVICES], nord = 0, rc = 0, unprobed = 0;
  st = choose_devices(&o, self, ranks, ordinals, &nord, &why, whybuf, sizeof whybuf, &unprobed);
  if (st < 0 && !why && (o.sample || o.csv)) {
    fprintf(stderr, "cutune run: %s is for runs without a GPU (add --compile-only%s)\n",
            o.sample ? "--sample" : "--csv",
            o.sample ? "; --budget N measures part of the space"
                     : "; a GPU run's records are the store, one JSON line "
                       "each: cutune report renders it");
    st = 2;
  }
  if (st >= 0) {
    free(self), space_free(s);
    return st;
  }
  run_outcome out = {0};
  if (why && ranks > 1) /* a serving rank without a GPU still answers rank 0, which goes on without it */
    rc = run_tune(s, &o, self, ordinals, 0, &out, &err);
  else if (why) rc = run_compile_only(s, &o, self, why, &out, &err);
  else rc = run_tune(s, &o, self, ordinals, nord, &out, &err);
  if (rc != 0 && unprobed && out.no_device) { /* no GPU after all: as a counted run without one */
    snprintf(whybuf, sizeof whybuf, "no CUDA device found (%s)", err.msg);
    out = (run_outcome){0};
    err.msg[0] = 0;
    rc = run_compile_only(s, &o, self, whybuf, &out, &err);
  }
  fflush(stdout);
  if (rc != 0) fprintf(stderr, "cutune: %s\n", err.msg);
  free(self);
  space_free(s);
  return rc ? 1 : outcome_status(&out);
}
