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
 *   nvrtc_cubin --embed FN KERNEL FATBIN OUT.cu
 *
 * The first writes OUT.cubin and prints ptxas' report (registers, spills) on standard output;
 * exit 0, or 1 with NVRTC's log on standard error. The second writes the translation unit that
 * ships a fatbinary of such cubins: its bytes, and FN_ptr(), which loads it with
 * cudaLibraryLoadData at the first call and returns kernel KERNEL as a cudaKernel_t (which
 * cudaLaunchKernel and cudaFuncSetAttribute take as a function) — the one text of that unit for
 * kernels/build_nvcc.sh and cmake/cutune_nvrtc_unit.cmake alike. */
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

/* --embed FN KERNEL FATBIN OUT.cu: 0, or 1 said why */
static int embed(const char *fn, const char *kernel, const char *fatbin, const char *out) {
  FILE *in = fopen(fatbin, "rb"), *o = in ? fopen(out, "w") : NULL;
  if (!in || !o) {
    fprintf(stderr, "nvrtc_cubin: cannot %s %s\n", in ? "write" : "read", in ? out : fatbin);
    if (in) fclose(in);
    return 1;
  }
  fprintf(o,
          "// %s: compiled by NVRTC as `cutune run` compiled it when it measured it (kernels/nvrtc_cubin.c)\n"
          "#include <cuda_runtime.h>\n"
          "alignas(8) static const unsigned char %s_fatbin[] = {",
          fn, fn);
  int c;
  for (long i = 0; (c = fgetc(in)) != EOF; i++) fprintf(o, "%s0x%02x,", i % 16 ? "" : "\n", c);
  fclose(in);
  fprintf(o,
          "\n};\n"
          "static const void *%s_load(void) {\n"
          "  cudaLibrary_t lib;\n"
          "  cudaKernel_t k;\n"
          "  if (cudaLibraryLoadData(&lib, %s_fatbin, 0, 0, 0, 0, 0, 0) != cudaSuccess) return 0;\n"
          "  if (cudaLibraryGetKernel(&k, lib, \"%s\") != cudaSuccess) return 0;\n"
          "  return (const void *)k;\n"
          "}\n"
          "/* a cudaKernel_t, which cudaLaunchKernel and cudaFuncSetAttribute take as a function */\n"
          "extern \"C\" const void *%s_ptr(void) {\n"
          "  static const void *k = %s_load(); /* once, thread-safe */\n"
          "  return k;\n"
          "}\n",
          fn, fn, kernel, fn, fn);
  if (fclose(o) != 0) {
    fprintf(stderr, "nvrtc_cubin: cannot write %s\n", out);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 6 && !strcmp(argv[1], "--embed")) return embed(argv[2], argv[3], argv[4], argv[5]);
  if (argc < 4) {
    fprintf(stderr, "usage: nvrtc_cubin ARCH SOURCE OUT.cubin [NVRTC-OPTION...]\n"
                    "       nvrtc_cubin --embed FN KERNEL FATBIN OUT.cu\n");
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
