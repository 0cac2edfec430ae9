/* header: `cutune header` — the C header of one space's tuned configurations, from the stores
 * (and Kernel Tuner caches) of any number of GPUs. The choice and the text are tuner/ship's;
 * this file reads the options, the space (names, parameters, block geometry) and the inputs. */
#include "ship_cmds.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/job.h"
#include "ship/header.h"
#include "ship/select.h"
#include "ship/ship_data.h"
#include "ship/ship_space.h"
#include "space/space.h"

static const char header_usage[] =
    "usage: cutune header SPACE.lua [INPUTS...] [options]\n"
    "\n"
    "Write one C header (C99 and C++) with the tuned configurations of the space, per device\n"
    "name and per architecture, with a portable default, for production launchers built\n"
    "offline (kernels/, cmake/CutuneKernels.cmake). The same inputs give the same bytes.\n"
    "\n"
    "INPUTS are cutune stores (results/<device>/<space>.jsonl), folders of them (default:\n"
    "results; only <space>.jsonl files are read), and Kernel Tuner cache files (.json,\n"
    ".json.gz) of GPUs you do not own. Only records of the space's current template count,\n"
    "and only configurations the space still has: narrow a space (drop a value, add a\n"
    "constraint) and the header ships none of what it excludes (a warning counts them).\n"
    "\n"
    "What the header chooses (docs/HEADER.md), per level: each GPU (its own measurements), each\n"
    "architecture and the portable default (over their GPUs: a kernel's share of a shape is its\n"
    "worst share of each GPU's own best, --rule mean: its mean share):\n"
    "  kernel set      the fewest kernels (at most --max-kernels) that bring every tuned problem\n"
    "                  (shape) within --cover of the best there: greedy set cover, then local\n"
    "                  improvement; each tuned shape is an entry with the fastest of them\n"
    "  rule            a size never tuned gets the kernel of the set with the least sum of\n"
    "                  ratios (time / best) over the k tuned shapes nearest to it (least sum of\n"
    "                  |ln(asked/tuned)| over the dimensions), k chosen by leave-one-out\n"
    "  selection       device name -> architecture -> default, then the rule\n"
    "A table of the levels goes to the terminal and into the header's comment: shapes, kernels,\n"
    "how many shapes the set covers, and the rule's leave-one-out figures (each tuned shape left\n"
    "out, the set chosen again without it, the rule applied: the share of the best it reached).\n"
    "The comment also has the performance-portability table: per GPU, the share of its own best\n"
    "the default and its architecture's entry reach. For the cross-measurement the kernel set\n"
    "needs (every candidate measured on every shape), see cutune run --help (shape sets).\n"
    "\n"
    "options:\n"
    "  -o, --output FILE    write there (default: standard output)\n"
    "  --rule worst|mean    how the portable choice is made (default worst)\n"
    "  --cover X            a kernel covers a shape within this fraction of its best (default 0.03)\n"
    "  --max-kernels N      kernels per level at most (default 16)\n"
    "  --knn auto|K         the rule's k for sizes never tuned (default auto: leave-one-out picks\n"
    "                       1 to 4; of those within 0.5 % of the best, the largest)\n"
    "  --fill auto|on|off   the rule's fill term: each neighbour's ratio scaled by how full the\n"
    "                       kernel keeps the GPU there over how full at the size asked (waves of\n"
    "                       blocks on SMs x blocks per SM; docs/HEADER.md); default auto:\n"
    "                       leave-one-out decides, with k\n"
    "  --why SIZES          also say which kernel each level's rule gives these sizes, e.g.\n"
    "                       --why K=1000,M=3000,N=200 (the problem key: names sorted; repeatable)\n"
    "  --kt-problem NAMES   the space's names for a Kernel Tuner problem_size, in its order, e.g.\n"
    "                       W,H (default: the dimensions of the space's first problem, in order)\n"
    "  --cc 'NAME=X.Y'      compute capability of a device the built-in table does not know\n"
    "                       (repeatable; Kernel Tuner caches name the device, not its architecture)\n"
    "  --allow-unchecked    ship a timing-only space (check = false) anyway; without it such a space\n"
    "                       is refused, since none of its configurations was checked\n"
    "  --kernel-path DIR    look for the space's template in DIR too (as cutune run;\n"
    "                       $CUTUNE_KERNEL_PATH)\n"
    "  -h, --help           this text\n"
    "\n"
    "errors: a store of another space, inputs whose parameter names disagree with the space's,\n"
    "an input in which nothing ran successfully, non-integer parameter values, a space whose\n"
    "template_edit makes a program per configuration (function(text, p): no -D build can).\n"
    "exit status: 0 written, 1 bad input, 2 bad command line.\n";

int header_main(int argc, char **argv) {
  enum { O_RULE = 256, O_KT, O_CC, O_UNCHECKED, O_COVER, O_MAXK, O_KNN, O_WHY, O_FILL, O_KPATH };
  static const struct option longs[] = {{"output", required_argument, 0, 'o'},
                                        {"rule", required_argument, 0, O_RULE},
                                        {"kt-problem", required_argument, 0, O_KT},
                                        {"cc", required_argument, 0, O_CC},
                                        {"allow-unchecked", no_argument, 0, O_UNCHECKED},
                                        {"cover", required_argument, 0, O_COVER},
                                        {"max-kernels", required_argument, 0, O_MAXK},
                                        {"knn", required_argument, 0, O_KNN},
                                        {"fill", required_argument, 0, O_FILL},
                                        {"why", required_argument, 0, O_WHY},
                                        {"kernel-path", required_argument, 0, O_KPATH},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  const char *outpath = NULL, *kt = NULL, *ccname[32];
  int mean = 0, c, ccval[32], ncc = 0, allow_unchecked = 0, maxk = 16, knn = 0, fill = -1;
  double cover = 0.03;
  const char *why[32];
  int nwhy = 0;
  char *ccbuf[32];
  dbuf cmd; /* the command as typed (getopt permutes argv), for the header's comment */
  dbuf_init(&cmd);
  dbuf_puts(&cmd, "cutune header");
  for (int i = 1; i < argc; i++) dbuf_printf(&cmd, " %s", argv[i]);
  optind = 1;
  while ((c = getopt_long(argc, argv, "ho:", longs, NULL)) != -1) {
    switch (c) {
    case 'o': outpath = optarg; break;
    case O_RULE:
      if (!strcmp(optarg, "mean")) mean = 1;
      else if (strcmp(optarg, "worst")) {
        fprintf(stderr, "cutune header: --rule must be worst or mean (got '%s')\n", optarg);
        dbuf_free(&cmd);
        return 2;
      }
      break;
    case O_KT: kt = optarg; break;
    case O_UNCHECKED: allow_unchecked = 1; break;
    case O_KPATH: space_kernel_path_add(optarg); break;
    case O_WHY:
      if (nwhy >= 32) {
        fprintf(stderr, "cutune header: --why at most 32 times\n");
        dbuf_free(&cmd);
        return 2;
      }
      why[nwhy++] = optarg;
      break;
    case O_COVER: {
      char *end;
      cover = strtod(optarg, &end);
      if (*end || end == optarg || !(cover >= 0) || cover > 10) {
        fprintf(stderr, "cutune header: --cover needs a fraction such as 0.03 (3 %%), got '%s'\n", optarg);
        dbuf_free(&cmd);
        return 2;
      }
      break;
    }
    case O_MAXK:
    case O_KNN: {
      char *end;
      long v = strtol(optarg, &end, 10);
      int auto_k = c == O_KNN && !strcmp(optarg, "auto");
      if (!auto_k && (*end || end == optarg || v < 1 || v > (c == O_MAXK ? 256 : SELECT_K_MAX))) {
        if (c == O_MAXK)
          fprintf(stderr, "cutune header: --max-kernels needs a number of kernels from 1 to 256, got '%s'\n", optarg);
        else
          fprintf(stderr, "cutune header: --knn needs auto or a number of shapes from 1 to %d, got '%s'\n",
                  SELECT_K_MAX, optarg);
        dbuf_free(&cmd);
        return 2;
      }
      if (c == O_MAXK) maxk = (int)v;
      else knn = auto_k ? 0 : (int)v;
      break;
    }
    case O_FILL:
      if (!strcmp(optarg, "auto")) fill = -1;
      else if (!strcmp(optarg, "on")) fill = 1;
      else if (!strcmp(optarg, "off")) fill = 0;
      else {
        fprintf(stderr, "cutune header: --fill needs auto, on or off, got '%s'\n", optarg);
        dbuf_free(&cmd);
        return 2;
      }
      break;
    case O_CC: {
      char *eq = strrchr(optarg, '=');
      int a, b;
      if (!eq || ncc >= 32 || sscanf(eq + 1, "%d.%d", &a, &b) != 2) {
        fprintf(stderr, "cutune header: --cc needs NAME=X.Y, e.g. --cc 'NVIDIA RTX A4000=8.6' (got '%s')\n", optarg);
        dbuf_free(&cmd);
        return 2;
      }
      ccbuf[ncc] = xstrdup(optarg);
      ccbuf[ncc][eq - optarg] = 0;
      ccname[ncc] = ccbuf[ncc], ccval[ncc++] = 10 * a + b;
      break;
    }
    case 'h':
      fputs(header_usage, stdout);
      dbuf_free(&cmd);
      return 0;
    default:
      fprintf(stderr, "cutune header: see 'cutune header --help'\n");
      dbuf_free(&cmd);
      return 2;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "cutune header: which space? (usage: cutune header SPACE.lua [INPUTS...]; see --help)\n");
    dbuf_free(&cmd);
    return 2;
  }
  cterr err = {0};
  int rc = 1;
  space *s = NULL;
  ship_data *d = NULL;
  dbuf warn, out;
  dbuf_init(&warn), dbuf_init(&out);
  char *ktcopy = NULL;
  const char *ktv[16], *pnames[CS_MAX_PARAMS];
  char thash[33];
  char(*chash)[33] = NULL;
  ship_checks checks;
  if (space_load(argv[optind], &s, &err) < 0) goto done;
  if (space_edit_per_config(s)) { /* a program per configuration that only the space's Lua makes */
    cterr_set(&err,
              "%s: its template_edit is a generator (function(text, p): a program text per configuration), and "
              "a build from the header compiles the template file with a configuration's -D values, where no Lua "
              "runs, so the tuned programs cannot be rebuilt from it: no header is written. Take the winners with "
              "`cutune best` and keep the generated kernels yourself, or write the kernel so that the parameters' "
              "macros decide it (#pragma unroll over a macro, #if) and ship that space (docs/SPACE.md, Generated "
              "kernels)",
              argv[optind]);
    goto done;
  }
  if (space_template_var(s) || space_edit_once(s)) /* shipped, but the build it drives compiles another text */
    dbuf_printf(&warn,
                "cutune header: warning: %s makes its program from %s by %s: the build the header drives "
                "(cmake/CutuneKernels.cmake, kernels/build_nvcc.sh) compiles that file itself with each "
                "configuration's -D values, not the program cutune measured; compile the shipped configurations "
                "from the same text yourself (docs/HEADER.md, Generated kernels)\n",
                argv[optind], space_template_path(s),
                space_template_var(s) && space_edit_once(s) ? "template_var and template_edit"
                : space_template_var(s)                     ? "template_var"
                                                            : "template_edit");
  if (space_unchecked(s) && !allow_unchecked) {
    cterr_set(&err,
              "%s is timing only (check = false): none of its configurations was checked against a reference, "
              "so none is shipped; give a reference, or --allow-unchecked to ship them anyway (the header's command "
              "line then says so)",
              argv[optind]);
    goto done;
  }
  /* records are keyed by the template and every file it includes, as `run` hashes them */
  if (job_template_hash(s, thash, &err) < 0) goto done;
  ship_opts so = {.ncc = ncc, .cc_names = ccname, .cc_values = ccval};
  ship_opts_for_space(&so, s, thash, pnames);
  /* ... and of the check each problem has now (a record of another check is not shipped) */
  if (job_space_check_hashes(s, &chash, &err) < 0) goto done;
  checks = (ship_checks){s, (const char(*)[33])chash};
  ship_opts_check(&so, &checks);
  int rtflag[CS_MAX_PARAMS];
  for (int p = 0; p < so.nparams; p++) rtflag[p] = space_param_runtime(s, p);
  if (kt) {
    ktcopy = xstrdup(kt);
    char *save = NULL;
    for (char *t = strtok_r(ktcopy, ",", &save); t && so.nkt_vars < 16; t = strtok_r(NULL, ",", &save))
      ktv[so.nkt_vars++] = t;
  } else {
    for (int j = 0; j < space_problem_nvars(s, 0) && j < 16; j++) ktv[so.nkt_vars++] = space_problem_var(s, 0, j, NULL);
  }
  so.kt_vars = ktv;
  d = ship_data_new(&so);
  if (optind + 1 >= argc && ship_data_add(d, "results", &warn, &err) < 0) goto done;
  for (int i = optind + 1; i < argc; i++)
    if (ship_data_add(d, argv[i], &warn, &err) < 0) goto done;
  if (ship_count(d) == 0) {
    cterr_set(
        &err,
        "no records of space '%s' in %s (a store is <results>/<device>/%s.jsonl; run cutune run %s on a GPU first)",
        space_name(s), optind + 1 < argc ? "the inputs" : "results/", space_name(s), argv[optind]);
    goto done;
  }
  dbuf report;
  dbuf_init(&report);
  header_opts ho = {.mean = mean,
                    .regenerate = cmd.data,
                    .block = ship_block_of,
                    .block_ctx = s,
                    .runtime = space_nruntime(s) ? rtflag : NULL,
                    .cover = cover,
                    .max_kernels = maxk,
                    .knn = knn,
                    .grid = ship_grid_of,
                    .grid_ctx = s,
                    .fill = fill,
                    .report = &report,
                    .why = why,
                    .nwhy = nwhy};
  int wrote = header_write(d, &ho, &out, &warn, &err);
  if (wrote == 0 && report.len) { /* every line prefixed: stderr may be mixed with a header on stdout */
    fprintf(stderr, "cutune header: kernel selection (cover %g, at most %d kernels per level):\n", cover, maxk);
    for (const char *l = report.data; *l;) {
      size_t n = strcspn(l, "\n");
      fprintf(stderr, "cutune header: %.*s\n", (int)n, l);
      l += n + (l[n] == '\n');
    }
  }
  dbuf_free(&report);
  if (wrote < 0) goto done;
  if (warn.len) fputs(warn.data, stderr);
  if (outpath) {
    if (file_write_output(outpath, out.data, out.len, &err) < 0) goto done;
    fprintf(stderr, "cutune header: %s written (%zu records of space '%s')\n", outpath, ship_count(d), space_name(s));
  } else if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
    cterr_set(&err, "cannot write the header to standard output: %s", strerror(errno));
    goto done;
  }
  rc = 0;
done:
  if (rc) {
    if (warn.len) fputs(warn.data, stderr);
    fprintf(stderr, "cutune header: %s\n", err.msg);
  }
  for (int i = 0; i < ncc; i++) free(ccbuf[i]);
  ship_data_free(d);
  space_free(s);
  dbuf_free(&warn), dbuf_free(&out), dbuf_free(&cmd);
  free(ktcopy);
  free(chash);
  return rc;
}
