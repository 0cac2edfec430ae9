/* space_cmd: `cutune space SPACE.lua` — the space counted and listed without compiling anything:
 * its parameters and their values, the raw and valid counts, the problems, and (with --list)
 * every valid configuration, one key a line, in enumeration order. What a Kernel Tuner user
 * compares with len(Searchspace(...)). With --hashes, the keys a run's records carry instead:
 * the template hash, each problem's check hash and each configuration's options hash, as `run`
 * computes them (tools/store-add-param restamps carried records with them). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/job.h"
#include "space/space.h"
#include "space_cmd.h"

#define CHECK_CONFIGS 16

/* The space's per-configuration functions (block, grid, shared, the arguments' values and
 * counts, tensor maps, launches, a per-configuration reference) evaluated as a run evaluates
 * them (job_launch_hash), on up to CHECK_CONFIGS configurations spread over the valid ones (the
 * first and the last among them) and every problem: a mistake in them shows here, before
 * anything is compiled. A failure of the space's own code (CTERR_SPACE: a space_error in a run)
 * is printed (the first 3) and counted; a launch over a limit of CUDA (an invalid record in a
 * run) is data, counted apart. Returns the count of the first kind. */
static int check_launches(space *s) {
  size_t n = configset_count(space_configs(s)), k = n < CHECK_CONFIGS ? n : CHECK_CONFIGS;
  int np = space_nproblems(s), bad = 0, limits = 0;
  gpu_job *gj = xcalloc(1, sizeof *gj);
  for (size_t i = 0; i < k; i++) {
    size_t cfg = k > 1 ? i * (n - 1) / (k - 1) : 0;
    for (int p = 0; p < np; p++) {
      cterr e = {0};
      char h[33];
      int r = job_launch_hash(s, cfg, p, gj, h, &e);
      if (r > 0) limits++;
      else if (r < 0 && bad++ < 3) printf("  space error: %s\n", e.msg);
    }
  }
  free(gj);
  if (k == 0) return 0;
  printf("launch functions: evaluated on %zu configuration%s x %d problem%s: ", k, k == 1 ? "" : "s", np,
         np == 1 ? "" : "s");
  if (!bad && !limits) printf("all evaluated\n");
  else {
    if (bad) printf("%d failed in the space's own code (space_error in a run)%s", bad, limits ? "; " : "");
    if (limits) printf("%d over a limit of CUDA (invalid in a run: data, not a failure)", limits);
    printf("\n");
  }
  return bad;
}

static const char help[] =
    "usage: cutune space SPACE.lua [--list] [--kernel-path DIR]\n"
    "       cutune space SPACE.lua --hashes [--arch sm_XY] [--kernel-path DIR]\n"
    "\n"
    "Loads the space (every key checked, the constraints applied) and prints its parameters with\n"
    "their values, how many configurations the parameters make and how many the constraints\n"
    "leave, and its problems. Then the launch functions (block, grid, shared, the arguments, launches)\n"
    "are evaluated, as a run evaluates them, on 16 configurations spread over the space and every\n"
    "problem: a Lua error in them is printed, and the exit status is 1. Nothing is compiled or measured.\n"
    "\n"
    "options:\n"
    "  --list             then every valid configuration, one per line (NAME=value,...), in the\n"
    "                     order exhaustive runs take them\n"
    "  --kernel-path DIR  look for the template in DIR too (as cutune run; $CUTUNE_KERNEL_PATH)\n"
    "  --hashes           instead, the hashes a run stamps on its records (provenance, docs/RECORDS.md),\n"
    "                     tab-separated: 'template HASH', then 'check PROBLEM HASH' per problem,\n"
    "                     then 'config KEY HASH' per valid configuration (its options hash); not the\n"
    "                     launch hash, one per configuration and problem from the space's functions\n"
    "                     (values, not code: a carried record launched the same still matches it)\n"
    "  --arch sm_XY       with --hashes: the target the options hashes are for (default sm_90; the\n"
    "                     architecture is in the hash: give the records' provenance.arch)\n";

/* --hashes: what `run` keys its records by (template, check and options hashes), one per line. */
static int print_hashes(space *s, const char *arch, cterr *err) {
  compile_source src;
  compile_source_init(&src);
  char(*chash)[33] = NULL, thash[33];
  job_ohashes *oh = NULL;
  int rc = -1;
  if (!compile_arch_supported(arch)) {
    cterr_set(err, "--arch %s is not an architecture NVRTC %s can target (one of: %s)", arch, compile_nvrtc_version(),
              compile_supported_archs());
    goto done;
  }
  if (job_load_source(s, &src, err) != 0 || job_space_check_hashes(s, &chash, err) != 0) goto done;
  if (!(oh = job_ohashes_new(s, &src, arch, err))) goto done;
  job_source_hash(&src, thash);
  printf("template\t%s\n", thash);
  for (int p = 0; p < space_nproblems(s); p++) printf("check\t%s\t%s\n", space_problem_key(s, p), chash[p]);
  const configset *cs = space_configs(s);
  for (size_t i = 0; i < configset_count(cs); i++) {
    char *k = configset_row_key(cs, configset_row(cs, i));
    const char *h = job_ohash(oh, i);
    printf("config\t%s\t%s\n", k, *h ? h : "-");
    free(k);
  }
  rc = 0;
done:
  job_ohashes_free(oh);
  free(chash);
  compile_source_free(&src);
  return rc;
}

int space_cmd_main(int argc, char **argv) {
  int list = 0, hashes = 0;
  const char *arch = "sm_90";
  static const struct option longopts[] = {
      {"list", no_argument, 0, 'l'},       {"hashes", no_argument, 0, 'H'},
      {"arch", required_argument, 0, 'a'}, {"kernel-path", required_argument, 0, 'k'},
      {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    if (c == 'l') list = 1;
    else if (c == 'H') hashes = 1;
    else if (c == 'a') arch = optarg;
    else if (c == 'k') space_kernel_path_add(optarg);
    else if (c == 'h') return fputs(help, stdout), 0;
    else {
      fprintf(stderr, "cutune space: unknown or incomplete option '%s' (see 'cutune space --help')\n",
              argv[optind - 1]);
      return 2;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "cutune space: give one space file (see 'cutune space --help')\n");
    return 2;
  }
  space *s;
  cterr err;
  if (space_load(argv[optind], &s, &err) != 0) {
    fprintf(stderr, "cutune: %s\n", err.msg);
    return 1;
  }
  if (hashes) {
    int rc = print_hashes(s, arch, &err);
    if (rc != 0) fprintf(stderr, "cutune: %s\n", err.msg);
    space_free(s);
    return rc == 0 && fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
  }
  const configset *cs = space_configs(s);
  printf("%s: space %s, template %s, kernel %s\n", space_path(s), space_name(s), space_template_path(s),
         space_kernel(s));
  for (int p = 0; p < configset_nparams(cs); p++) {
    const cs_param *pp = configset_param(cs, p);
    printf("  %-24s %3d value%s:", pp->name, pp->nvalues, pp->nvalues == 1 ? " " : "s");
    for (int v = 0; v < pp->nvalues && v < 24; v++) printf(" %s", pp->str[v]);
    printf("%s%s\n", pp->nvalues > 24 ? " ..." : "", space_param_runtime(s, p) ? " (runtime)" : "");
  }
  printf("%zu valid configurations of %.0f (enumerated in %.3f s)\n", configset_count(cs), configset_raw_size(cs),
         space_enumerate_seconds(s));
  for (int i = 0; i < space_nproblems(s); i++) printf("problem %s\n", space_problem_key(s, i));
  int bad = check_launches(s);
  if (list)
    for (size_t i = 0; i < configset_count(cs); i++) {
      char *k = configset_row_key(cs, configset_row(cs, i));
      printf("%s\n", k);
      free(k);
    }
  space_free(s);
  return fflush(stdout) == 0 && !ferror(stdout) && !bad ? 0 : 1;
}
