/* space_cmd: `cutune space SPACE.lua` — the space counted and listed without compiling anything:
 * its parameters and their values, the raw and valid counts, the problems, and (with --list)
 * every valid configuration, one key a line, in enumeration order. What a Kernel Tuner user
 * compares with len(Searchspace(...)). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "space/space.h"
#include "space_cmd.h"

static const char help[] =
    "usage: cutune space SPACE.lua [--list] [--kernel-path DIR]\n"
    "\n"
    "Loads the space (every key checked, the constraints applied) and prints its parameters with\n"
    "their values, how many configurations the parameters make and how many the constraints\n"
    "leave, and its problems. Nothing is compiled or measured.\n"
    "\n"
    "options:\n"
    "  --list             then every valid configuration, one per line (NAME=value,...), in the\n"
    "                     order exhaustive runs take them\n"
    "  --kernel-path DIR  look for the template in DIR too (as cutune run; $CUTUNE_KERNEL_PATH)\n";

int space_cmd_main(int argc, char **argv) {
  int list = 0;
  static const struct option longopts[] = {{"list", no_argument, 0, 'l'},
                                           {"kernel-path", required_argument, 0, 'k'},
                                           {"help", no_argument, 0, 'h'},
                                           {0, 0, 0, 0}};
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    if (c == 'l') list = 1;
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
  if (list)
    for (size_t i = 0; i < configset_count(cs); i++) {
      char *k = configset_row_key(cs, configset_row(cs, i));
      printf("%s\n", k);
      free(k);
    }
  space_free(s);
  return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
