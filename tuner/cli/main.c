/* main: the command line. Parses the subcommand and hands over to the unit that owns it;
 * it checks that what the commands printed reached standard output (stdout_done).
 *
 *   cutune run SPACE.lua [options]      tune a space (or compile-only without a GPU)
 *   cutune run --replay FILE [options]  run a search strategy on recorded measurements
 *   cutune score FILE...                scoreboard of search strategies on recorded spaces
 *   cutune explain SPACE.lua            ncu counters and sanitizer verdicts of the top configurations
 *   cutune report SPACE.lua             the store as one self-contained HTML page
 *   cutune help [COMMAND]
 * Hidden: __compile-worker, __gpu-worker ORDINAL (started by cutune itself), __profile-one
 * SPACE CONFIG PROBLEM (run by explain under ncu and compute-sanitizer). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile.h"
#include "gpu/gpu.h"

#include "explain.h"
#include "profile_one.h"
#include "report_cmd.h"
#include "run.h"
#include "search/score.h"
#include "ship_cmds.h"
#include "space_cmd.h"

#ifndef CUTUNE_VERSION
#define CUTUNE_VERSION "0.1.0"
#endif

static const char usage[] =
    "usage: cutune <command> [options]\n"
    "\n"
    "cutune tunes CUDA kernels: a Lua file describes a space of kernel variants; cutune\n"
    "compiles each with NVRTC, checks it against a reference on the GPU, times it and keeps\n"
    "every measurement in results/<device>/<space>.jsonl.\n"
    "\n"
    "commands:\n"
    "  run SPACE.lua        tune a space (without a GPU: enumerate, compile and report resources)\n"
    "  run --replay FILE    run a search strategy on recorded measurements (no GPU needed)\n"
    "  space SPACE.lua      count (and --list) a space's configurations without compiling\n"
    "  score FILE...        compare search strategies on recorded spaces (scoreboard + SVG)\n"
    "  explain SPACE.lua    why the winner wins: Nsight Compute counters and sanitizer verdicts\n"
    "  report SPACE.lua     one self-contained HTML page of a store (tables, figures, provenance)\n"
    "  best [RESULTS...]    the Pareto front (time, energy, ...) per GPU, space and problem\n"
    "  header SPACE.lua     the C header of the tuned configurations per device and architecture\n"
    "  devices [--count]    list the CUDA devices (name, architecture, measured copy bandwidth)\n"
    "  help [COMMAND]       this text, or a command's options\n"
    "  version              print the version\n"
    "\n"
    "'cutune help run' or 'cutune run --help' lists the options of run.\n";

/* `cutune devices`: asks short-lived workers, so this process stays CUDA-free. */
static int devices_main(int argc, char **argv) {
  int count_only = argc >= 2 && !strcmp(argv[1], "--count");
  if (argc >= 2 && !count_only) {
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
      puts(
          "usage: cutune devices [--count]\n\nLists the CUDA devices with their architecture, memory and the\n"
          "device-to-device copy bandwidth measured now. --count prints only how many there are\n"
          "(0 where there is no driver or no device) and always exits 0.");
      return 0;
    }
    fprintf(stderr, "cutune devices: unknown option '%s' (see 'cutune devices --help')\n", argv[1]);
    return 2;
  }
  char *self = self_exe_path();
  cterr err = {0};
  int n = self ? gpu_count(self, &err) : -1;
  if (count_only) {
    printf("%d\n", n > 0 ? n : 0);
    free(self);
    return 0;
  }
  if (n <= 0) {
    printf("no CUDA device%s%s\n", err.msg[0] ? ": " : "", err.msg);
    free(self);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    gpu *g = NULL;
    if (gpu_start(&g, self, i, &err) != 0) {
      printf("%d: cannot start a worker: %s\n", i, err.msg);
      continue;
    }
    const gpu_device_info *d = gpu_info(g);
    printf(
        "%d: %s (%s, compute capability %s, %d SMs, %.0f MiB L2, %.1f GiB), driver %s, UUID %s, "
        "device-to-device copy %.0f GB/s\n",
        i, d->name, d->arch, d->cc, d->sms, d->l2_bytes / 1048576.0, d->mem_bytes / 1073741824.0, d->driver, d->uuid,
        d->copy_gbps);
    gpu_stop(g);
  }
  free(self);
  return 0;
}

/* The user's commands (the workers above never get here: their stdout is a protocol). */
static int command(int argc, char **argv) {
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    if (argc >= 3 && strcmp(cmd, "help") == 0) {
      char *sub[] = {argv[2], "--help", NULL};
      if (!strcmp(argv[2], "run")) return run_main(2, sub);
      if (!strcmp(argv[2], "score")) return search_score_main(2, sub);
      if (!strcmp(argv[2], "explain")) return explain_main(2, sub);
      if (!strcmp(argv[2], "report")) return report_cmd_main(2, sub);
      if (!strcmp(argv[2], "best")) return best_main(2, sub);
      if (!strcmp(argv[2], "header")) return header_main(2, sub);
      if (!strcmp(argv[2], "space")) return space_cmd_main(2, sub);
      if (!strcmp(argv[2], "devices")) return devices_main(2, sub);
      if (!strcmp(argv[2], "help")) {
        fputs(usage, stdout);
        return 0;
      }
      if (!strcmp(argv[2], "version")) {
        puts("usage: cutune version\n\nPrints cutune's version and the NVRTC version it compiles with.");
        return 0;
      }
      fprintf(stderr,
              "cutune: no command '%s' (commands: run, space, score, best, header, explain, report, devices, help, "
              "version)\n",
              argv[2]);
      return 2;
    }
    fputs(usage, stdout);
    return 0;
  }
  if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
    printf("cutune %s (NVRTC %s)\n", CUTUNE_VERSION, compile_nvrtc_version());
    return 0;
  }
  if (!strcmp(cmd, "devices")) return devices_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "run")) return run_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "score")) return search_score_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "explain")) return explain_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "report")) return report_cmd_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "best")) return best_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "header")) return header_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "space")) return space_cmd_main(argc - 1, argv + 1);
  fprintf(stderr,
          "cutune: unknown command '%s' (commands: run, space, score, best, header, explain, report, devices, help, "
          "version; see 'cutune --help')\n",
          cmd);
  return 2;
}

/* Whatever a command printed must have reached standard output: a full disk or a closed file
 * leaves it cut short, so a write error (sticky in ferror, or from the last flush) is an error
 * of the command, with a message and status 1 where it would have exited 0. */
static int stdout_done(int rc) {
  int failed = ferror(stdout), e = 0; /* an earlier write failed (its errno is long gone) */
  errno = 0;
  if (fflush(stdout) != 0) failed = 1, e = errno;
  if (fclose(stdout) != 0) failed = 1, e = e ? e : errno;
  if (!failed) return rc;
  fprintf(stderr, "cutune: writing standard output failed%s%s: what the command printed is incomplete\n", e ? ": " : "",
          e ? strerror(e) : "");
  return rc ? rc : 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "__compile-worker"))
    return compile_worker_main(argc > 2 && !strcmp(argv[2], COMPILE_WORKER_NO_NVRTC_CACHE));
  if (!strcmp(cmd, "__gpu-worker")) return gpu_worker_main(argc - 1, argv + 1);
  if (!strcmp(cmd, "__profile-one")) return profile_one_main(argc - 1, argv + 1);
  trace_mark("cutune %s", cmd); /* CUTUNE_TRACE: the run's clock starts here (util.h) */
  /* Whole lines, each in one write, on both streams even into a pipe or file: a table row on
   * stdout and a progress line on stderr sharing one log (2>&1 | tee) never cut each other.
   * (After the workers above: their stdout is a binary protocol.) */
  setvbuf(stdout, NULL, _IOLBF, 1 << 16);
  setvbuf(stderr, NULL, _IOLBF, 1 << 16);
  return stdout_done(command(argc, argv));
}
