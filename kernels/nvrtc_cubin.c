/* nvrtc_cubin: one shipped configuration compiled the way `cutune run` compiled it when it was
 * measured — with NVRTC, for one real architecture, with ptxas' report — into a cubin, for
 * kernels/build_nvcc.sh's CUTUNE_UNITS=nvrtc (docs/HEADER.md, "The kernels a build ships").
 * nvcc and NVRTC of the same toolkit compile the same source to different code (on the H200's
 * SGEMM: other register counts for 10 of 14 shipped configurations, one of them losing half its
 * occupancy), so a launcher built by nvcc may not run what the tuner timed; a cubin from here
 * is what it timed. The options are the tuner's (tuner/compile/compile.c, base_opts):
 * --gpu-architecture=sm_XY, -Xptxas=-v and the toolkit's include folder, then the caller's.
 * A build tool of its own (no cutune library, no Lua): it owns its NVRTC calls. C that also
 * compiles as C++ (cmake/CutuneKernels.cmake builds it in projects without C enabled).
 *
 *   nvrtc_cubin ARCH SOURCE OUT.cubin [NVRTC-OPTION...]     ARCH: 90, 90a, 80, ...
 *
 * Writes OUT.cubin and prints ptxas' report (registers, spills) on standard output; exit 0, or
 * 1 with NVRTC's log on standard error. */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0, k;
  char *b = (char *)malloc(cap + 1);
  while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) {
      char *nb = (char *)realloc(b, 2 * cap + 1);
      if (!nb) free(b);
      b = nb, cap *= 2;
    }
  }
  fclose(f);
  if (b) b[n] = 0;
  return b;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: nvrtc_cubin ARCH SOURCE OUT.cubin [NVRTC-OPTION...]\n");
    return 2;
  }
  char *src = read_all(argv[2]);
  if (!src) {
    fprintf(stderr, "nvrtc_cubin: cannot read %s\n", argv[2]);
    return 1;
  }
  char arch[64], inc[4096];
  snprintf(arch, sizeof arch, "--gpu-architecture=sm_%s", argv[1]);
  const char *opts[64];
  int n = 0;
  opts[n++] = arch;
  opts[n++] = "-Xptxas=-v";
  const char *cuda = getenv("CUDA_HOME");
  snprintf(inc, sizeof inc, "-I%s/include", cuda && *cuda ? cuda : "/usr/local/cuda");
  opts[n++] = inc;
  for (int i = 4; i < argc && n < 64; i++) opts[n++] = argv[i];
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, src, argv[2], 0, NULL, NULL) != NVRTC_SUCCESS) {
    fprintf(stderr, "nvrtc_cubin: nvrtcCreateProgram failed for %s\n", argv[2]);
    return 1;
  }
  nvrtcResult rc = nvrtcCompileProgram(prog, n, opts);
  size_t ls = 0;
  nvrtcGetProgramLogSize(prog, &ls);
  char *log = (char *)malloc(ls + 1);
  if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS) log[ls] = 0;
  if (rc != NVRTC_SUCCESS) {
    fprintf(stderr, "nvrtc_cubin: %s: %s\n%s\n", argv[2], nvrtcGetErrorString(rc), log ? log : "");
    return 1;
  }
  size_t cs = 0;
  char *cubin = NULL;
  if (nvrtcGetCUBINSize(prog, &cs) != NVRTC_SUCCESS || !cs || !(cubin = (char *)malloc(cs)) ||
      nvrtcGetCUBIN(prog, cubin) != NVRTC_SUCCESS) {
    fprintf(stderr, "nvrtc_cubin: %s: no cubin (a virtual architecture?)\n", argv[2]);
    return 1;
  }
  FILE *o = fopen(argv[3], "wb");
  if (!o || fwrite(cubin, 1, cs, o) != cs || fclose(o) != 0) {
    fprintf(stderr, "nvrtc_cubin: cannot write %s\n", argv[3]);
    return 1;
  }
  fputs(log ? log : "", stdout);
  nvrtcDestroyProgram(&prog);
  free(src), free(log), free(cubin);
  return 0;
}
