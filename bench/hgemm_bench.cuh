// hgemm_bench.cuh: the table of configurations that bench/hgemm_build.sh compiles into
// bench/hgemm_bench.cu (its table build): one generated unit per configuration defines one entry
// (the template with the configuration's -D values, its kernel renamed), and a last unit lists them.
#ifndef CUTUNE_HGEMM_BENCH_CUH
#define CUTUNE_HGEMM_BENCH_CUH

struct hgb_config {
  const char *name;    // "WG=1 BM=128 ..." (the -D values)
  const void *kernel;  // templates/hgemm.cu's kernel, built with them
  int threads, smem, bm, bn, bk, wg, swz, tma;
};

// The configurations of the build, in the order of the list it was made from.
extern "C" const hgb_config *const *hgb_configs(int *n);

#endif
