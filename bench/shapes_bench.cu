// shapes_bench: the shipped launchers (cutune_sgemm, cutune_transpose, cutune_vecadd, built from
// the committed headers: bench/shapes.sh) side by side with the vendor, in one process, over
// shape list files:
//
//   sgemm M N K      cutune_sgemm (C = 1.0 * A*B + 0.5 * C, float32, row-major) against
//                    cublasSgemm in strict FP32, CUBLAS_PEDANTIC_MATH and CUBLAS_DEFAULT_MATH
//                    (FFMA kernels; TF32 only with TF32 math modes or NVIDIA_TF32_OVERRIDE, which
//                    is unset), the faster of the two counted; checked against cuBLAS PEDANTIC
//                    (relative L2 error of C at most 1e-4; a real bug is 1e-2 or worse)
//   transpose R C    cutune_transpose of an R x C matrix against cudaMemcpy (device to device) of
//                    the same bytes (R * C floats: as many bytes read and written); checked bit
//                    for bit against a naive transpose; its "why" line also gives a float4 copy
//                    kernel's time for those bytes, timed the same way, and memcpy's ratio to it
//   vecadd N         cutune_vecadd against cudaMemcpy of the same bytes (1.5 N floats: 12 N bytes
//                    read and written); checked bit for bit against a + b
//
// Each is timed as the median of --reps (default 20) launches after a warm-up of at least 50 ms (BENCH_WARM_MS), each launch
// between its own pair of events (bench/bench_common.cuh); --queue N: a sample is N launches back
// to back between a pair, over N (the GPU never waits for the host between them). "ratio" is vendor time / cutune time
// (>= 1: cutune is at least as fast). Per list file and kind: every shape, the geometric mean
// of the ratios, the minimum and how many are at or above 1. A list file has one shape per
// line ("kind sizes... [# comment]"); '#' starts a comment line. --csv FILE writes every row.
//
//   nvcc -O3 -arch=sm_90 -I results -I kernels -o shapes_bench bench/shapes_bench.cu <the launchers
//   and their generated kernels> -lcublas        (bench/shapes.sh does this)
//   ./shapes_bench [--reps N] [--queue N] [--csv FILE] LIST...
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "cutune_matmul.h"
#include "cutune_transpose.h"
#include "cutune_vecadd.h"

struct shape {
  std::string kind, label, list;
  long long d[3];
};

struct row {
  shape s;
  double cutune_ms, vendor_ms, ratio, err;
  int ok;
  std::string config, why;
};

static std::vector<shape> read_list(const char *path) {
  std::vector<shape> v;
  FILE *f = fopen(path, "r");
  if (!f) fprintf(stderr, "shapes_bench: %s: cannot open\n", path), exit(2);
  char line[1024];
  int ln = 0;
  while (fgets(line, sizeof line, f)) {
    ln++;
    char *hash = strchr(line, '#');
    std::string label = hash ? std::string(hash + 1) : "";
    if (hash) *hash = 0;
    char kind[32];
    long long a = 0, b = 0, c = 0;
    int n = sscanf(line, "%31s %lld %lld %lld", kind, &a, &b, &c);
    if (n <= 0) continue;
    shape s;
    s.kind = kind, s.list = path, s.d[0] = a, s.d[1] = b, s.d[2] = c;
    while (!label.empty() && (label.back() == '\n' || label.back() == ' ')) label.pop_back();
    while (!label.empty() && label[0] == ' ') label.erase(0, 1);
    s.label = label;
    int need = s.kind == "sgemm" ? 4 : s.kind == "transpose" ? 3 : s.kind == "vecadd" ? 2 : -1;
    if (need < 0 || n < need || a < 1 || (need > 2 && b < 1) || (need > 3 && c < 1))
      fprintf(stderr, "%s:%d: expected 'sgemm M N K', 'transpose ROWS COLS' or 'vecadd N' (positive sizes)\n", path, ln),
          exit(2);
    v.push_back(s);
  }
  fclose(f);
  return v;
}

__global__ void naive_transpose(float *out, const float *in, long long rows, long long cols) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < rows * cols) out[(i % cols) * rows + i / cols] = in[i];
}
__global__ void add_ref(float *c, const float *a, const float *b, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
__global__ void count_diff(const unsigned *a, const unsigned *b, long long n, unsigned long long *bad) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n && a[i] != b[i]) atomicAdd(bad, 1ULL);
}
static unsigned long long differ(const float *a, const float *b, long long n) {
  unsigned long long *d, h = 0;
  CK(cudaMalloc(&d, sizeof *d));
  CK(cudaMemset(d, 0, sizeof *d));
  count_diff<<<bench_cdiv(n, 256), 256>>>((const unsigned *)a, (const unsigned *)b, n, d);
  CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  return h;
}
static void fill(float *p, long long n, unsigned seed) {
  bench_fill_uniform<<<1024, 256>>>(p, n, seed, -1.0f, 1.0f);
  CK(cudaGetLastError());
}

static row run_sgemm(cublasHandle_t h, const shape &s, int reps) {
  const int M = (int)s.d[0], N = (int)s.d[1], K = (int)s.d[2];
  float *A, *B, *C, *C0, *R;
  const size_t nc = (size_t)M * N;
  CK(cudaMalloc(&A, (size_t)M * K * 4 + 16));
  CK(cudaMalloc(&B, (size_t)K * N * 4 + 16));
  CK(cudaMalloc(&C, nc * 4 + 16));
  CK(cudaMalloc(&C0, nc * 4 + 16));
  CK(cudaMalloc(&R, nc * 4 + 16));
  fill(A, (long long)M * K, 1), fill(B, (long long)K * N, 2), fill(C0, (long long)nc, 3);
  const float alpha = 1.0f, beta = 0.5f;
  // row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets (N, M, K) with B first
  auto cublas = [&](cublasMath_t mode, float *out) {
    CKB(cublasSetMathMode(h, mode));
    return [=, &h] { CKB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, out, N)); };
  };
  // the check: one launch each from the same C0
  CK(cudaMemcpy(R, C0, nc * 4, cudaMemcpyDeviceToDevice));
  cublas(CUBLAS_PEDANTIC_MATH, R)();
  CK(cudaMemcpy(C, C0, nc * 4, cudaMemcpyDeviceToDevice));
  CK(cutune_sgemm(M, N, K, alpha, A, B, beta, C, 0));
  CK(cudaDeviceSynchronize());
  std::vector<float> hc(nc), hr(nc);
  CK(cudaMemcpy(hc.data(), C, nc * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hr.data(), R, nc * 4, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (size_t i = 0; i < nc; i++) num += (double)(hc[i] - hr[i]) * (hc[i] - hr[i]), den += (double)hr[i] * hr[i];
  row r;
  r.s = s;
  r.err = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  r.ok = r.err <= 1e-4 && std::isfinite(r.err);
  r.cutune_ms = bench_median_ms([&] { cutune_sgemm(M, N, K, alpha, A, B, beta, C, 0); }, reps);
  double ped = bench_median_ms(cublas(CUBLAS_PEDANTIC_MATH, R), reps);
  double def = bench_median_ms(cublas(CUBLAS_DEFAULT_MATH, R), reps);
  r.vendor_ms = std::min(ped, def);
  r.ratio = r.vendor_ms / r.cutune_ms;
  char params[256], why[1024];
  int config;
  CK(cutune_sgemm_describe(M, N, K, &config, params, sizeof params, nullptr, nullptr, nullptr));
  CK(cutune_sgemm_why(M, N, K, why, sizeof why));
  r.config = std::to_string(config) + " " + params, r.why = why;
  for (float *p : {A, B, C, C0, R}) CK(cudaFree(p));
  return r;
}

static row run_transpose(const shape &s, int reps) {
  const long long rows = s.d[0], cols = s.d[1], n = rows * cols;
  float *in, *out, *ref;
  CK(cudaMalloc(&in, n * 4 + 16));
  CK(cudaMalloc(&out, n * 4 + 16));
  CK(cudaMalloc(&ref, n * 4 + 16));
  fill(in, n, 4);
  naive_transpose<<<bench_cdiv(n, 256), 256>>>(ref, in, rows, cols);
  CK(cudaMemset(out, 0xff, n * 4));
  CK(cutune_transpose(out, in, (int)rows, (int)cols, 0));
  CK(cudaDeviceSynchronize());
  row r;
  r.s = s;
  r.err = (double)differ(out, ref, n);
  r.ok = r.err == 0;
  r.cutune_ms = bench_median_ms([&] { cutune_transpose(out, in, (int)rows, (int)cols, 0); }, reps);
  r.vendor_ms = bench_median_ms([&] { CK(cudaMemcpyAsync(ref, in, n * 4, cudaMemcpyDeviceToDevice)); }, reps);
  r.ratio = r.vendor_ms / r.cutune_ms;
  /* a plain float4 copy kernel of the same bytes, timed the same way: what a launched kernel
   * that moves them at best gets against cudaMemcpy (single launches pay a kernel's start
   * between their events; a sequence of copies does not) */
  const long long n4 = n / 4;
  const double copy_ms = bench_median_ms(
      [&] { bench_copy_float4<<<bench_cdiv(n4, 256), 256>>>((float4 *)ref, (const float4 *)in, n4); }, reps);
  char params[256], why[1024];
  int config;
  CK(cutune_transpose_describe((int)rows, (int)cols, &config, params, sizeof params, nullptr, nullptr, nullptr, nullptr));
  CK(cutune_transpose_why((int)rows, (int)cols, why, sizeof why));
  char copy[160];
  snprintf(copy, sizeof copy, " [a float4 copy kernel: %.4f ms, memcpy / it %.3f]", copy_ms,
           r.vendor_ms * ((double)n4 * 4 / (double)n) / copy_ms);
  r.config = std::to_string(config) + " " + params, r.why = std::string(why) + copy;
  for (float *p : {in, out, ref}) CK(cudaFree(p));
  return r;
}

static row run_vecadd(const shape &s, int reps) {
  const long long n = s.d[0], nc = n + n / 2 + 4; // the copy moves as many bytes: 1.5 n floats
  float *a, *b, *c, *ref, *cp;
  CK(cudaMalloc(&a, n * 4 + 16));
  CK(cudaMalloc(&b, n * 4 + 16));
  CK(cudaMalloc(&c, n * 4 + 16));
  CK(cudaMalloc(&ref, n * 4 + 16));
  CK(cudaMalloc(&cp, 2 * nc * 4 + 16)); // the copy reads one half and writes the other
  fill(a, n, 5), fill(b, n, 6);
  add_ref<<<bench_cdiv(n, 256), 256>>>(ref, a, b, n);
  CK(cudaMemset(c, 0xff, n * 4));
  CK(cutune_vecadd(c, a, b, n, 0));
  CK(cudaDeviceSynchronize());
  row r;
  r.s = s;
  r.err = (double)differ(c, ref, n);
  r.ok = r.err == 0;
  r.cutune_ms = bench_median_ms([&] { cutune_vecadd(c, a, b, n, 0); }, reps);
  const size_t bytes = (size_t)(1.5 * (double)n) * 4; // read 6n, write 6n: vecadd's 12n
  r.vendor_ms = bench_median_ms([&] { CK(cudaMemcpyAsync(cp + nc, cp, bytes, cudaMemcpyDeviceToDevice)); }, reps);
  r.ratio = r.vendor_ms / r.cutune_ms;
  char params[256], why[1024];
  int config;
  CK(cutune_vecadd_describe(n, &config, params, sizeof params, nullptr, nullptr, nullptr));
  CK(cutune_vecadd_why(n, why, sizeof why));
  r.config = std::to_string(config) + " " + params, r.why = why;
  for (float *p : {a, b, c, ref, cp}) CK(cudaFree(p));
  return r;
}

static std::string dims(const shape &s) {
  char b[96];
  if (s.kind == "sgemm") snprintf(b, sizeof b, "%lldx%lldx%lld", s.d[0], s.d[1], s.d[2]);
  else if (s.kind == "transpose") snprintf(b, sizeof b, "%lldx%lld", s.d[0], s.d[1]);
  else snprintf(b, sizeof b, "%lld", s.d[0]);
  return b;
}

int main(int argc, char **argv) {
  int reps = 20;
  const char *csv = nullptr;
  std::vector<const char *> lists;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else if (!strcmp(argv[i], "--queue") && i + 1 < argc) bench_queue = atoi(argv[++i]);
    else if (argv[i][0] == '-')
      fprintf(stderr, "usage: %s [--reps N] [--queue N] [--csv FILE] LIST...\n", argv[0]), exit(2);
    else lists.push_back(argv[i]);
  }
  if (lists.empty() || reps < 1) fprintf(stderr, "usage: %s [--reps N] [--csv FILE] LIST...\n", argv[0]), exit(2);
  unsetenv("NVIDIA_TF32_OVERRIDE");
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    fprintf(stderr, "shapes_bench: no CUDA device\n");
    return 77;
  }
  int rt = 0, drv = 0, cbv = 0;
  cudaRuntimeGetVersion(&rt), cudaDriverGetVersion(&drv);
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  CKB(cublasGetVersion(h, &cbv));
  printf("device: %s (sm_%d%d, %d SMs), CUDA runtime %d, driver %d, cuBLAS %d; median of %d %s after %.0f ms of warm-up\n", prop.name,
         prop.major, prop.minor, prop.multiProcessorCount, rt, drv, cbv, reps,
         bench_queue > 1 ? "samples of launches back to back (--queue)" : "launches, each between its own events",
         bench_warm_ms());
  if (bench_queue > 1) printf("a sample: %d launches back to back between two events, over %d\n", bench_queue, bench_queue);
  printf("ratio = vendor time / cutune time (sgemm: the faster cuBLAS strict-FP32 mode; transpose, vecadd: cudaMemcpy of "
         "the same bytes)\n");
  FILE *cf = csv ? fopen(csv, "w") : nullptr;
  if (cf) fprintf(cf, "list,kind,shape,cutune_ms,vendor_ms,ratio,check,config,label\n");
  std::vector<row> all;
  int bad = 0;
  for (const char *list : lists) {
    std::vector<shape> v = read_list(list);
    printf("\n== %s: %zu shapes ==\n", list, v.size());
    printf("%-9s %-20s %10s %10s %7s  %-6s %s\n", "kind", "shape", "cutune ms", "vendor ms", "ratio", "check", "config (why)");
    for (const shape &s : v) {
      row r = s.kind == "sgemm" ? run_sgemm(h, s, reps) : s.kind == "transpose" ? run_transpose(s, reps) : run_vecadd(s, reps);
      bad |= !r.ok;
      char chk[32];
      if (s.kind == "sgemm") snprintf(chk, sizeof chk, "%.0e", r.err);
      else snprintf(chk, sizeof chk, "%s", r.ok ? "exact" : "WRONG");
      printf("%-9s %-20s %10.4f %10.4f %7.3f  %-6s %s%s%s\n", s.kind.c_str(), dims(s).c_str(), r.cutune_ms, r.vendor_ms,
             r.ratio, r.ok ? chk : "WRONG", r.config.c_str(), s.label.empty() ? "" : "  # ", s.label.c_str());
      printf("%31s why: %s\n", "", r.why.c_str());
      if (cf)
        fprintf(cf, "%s,%s,%s,%.5f,%.5f,%.4f,%s,\"%s\",\"%s\"\n", list, s.kind.c_str(), dims(s).c_str(), r.cutune_ms,
                r.vendor_ms, r.ratio, r.ok ? "ok" : "WRONG", r.config.c_str(), s.label.c_str());
      fflush(stdout);
      all.push_back(r);
    }
  }
  printf("\n== summary (ratio = vendor / cutune) ==\n%-28s %-9s %6s %9s %9s %10s %7s\n", "list", "kind", "shapes", "geo mean",
         "minimum", ">= vendor", "wrong");
  for (const char *list : lists)
    for (const char *kind : {"sgemm", "transpose", "vecadd"}) {
      int n = 0, at = 0, wrong = 0;
      double lg = 0, mn = INFINITY;
      for (const row &r : all)
        if (r.s.list == list && r.s.kind == kind) n++, lg += std::log(r.ratio), mn = std::min(mn, r.ratio), at += r.ratio >= 1,
                                                      wrong += !r.ok;
      if (n) printf("%-28s %-9s %6d %9.3f %9.3f %10d %7d\n", list, kind, n, std::exp(lg / n), mn, at, wrong);
    }
  if (cf) fclose(cf);
  cublasDestroy(h);
  return bad ? 1 : 0;
}
