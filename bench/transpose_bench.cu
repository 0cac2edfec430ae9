// transpose_bench: the seed document's transpose table, reproduced and extended, measured side by
// side in one process with one method, against the practical limit (a device-to-device copy).
//
//   nvcc -O3 -arch=sm_90 -o transpose_bench bench/transpose_bench.cu -lcublas  [-DTILE=64 -DPAD=1 ...]
//   ./transpose_bench [--sizes 8192,4096,16384] [--reps 50] [--csv FILE]
//
// Rows, for N x N float32 (bytes = N*N*4 read + N*N*4 written, for every row, copies included):
//   cudaMemcpy D2D        the reference for "% of memcpy"
//   float4 copy kernel    one float4 per thread
//   cublasSgeam           cuBLAS's transpose (C = 1 * A^T + 0 * B)
//   seed naive            the seed's first kernel, 32x32 threads, one element each
//   seed tile32 nopad     the seed's shared-tile kernel, 32x32 tile, 32x8 threads (4 rows each)
//   seed tile32 pad1      the same with the +1 padding
//   cutune best           templates/transpose.cu compiled here with the -D values of cutune's
//                         winner (bench/transpose.sh passes them), launched with the space's geometry
//
// Method, identical for every row: warm-up runs for 50 ms (bench_common.cuh); then REPS runs queued back to back, each between
// its own pair of CUDA events, so the GPU never waits for the host; the median of the REPS event
// times is reported (min beside it in the CSV). No L2 flush: 8192^2 moves 512 MB, ~9x the H200's
// 60 MB L2, so each run sees a cold L2 for its inputs (4096^2 moves 128 MB: ~2x; read its figures
// with that in mind). Every output is poisoned, then compared bit for bit with a host transpose
// (copies with the input).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../templates/transpose.cu"  // `transpose`, configured by the -D flags of this build
#include "bench_common.cuh"             // CK, CKB, bench_time (the method above), bench_copy_float4

// ---- the seed's kernels (square N x N, as in the seed document) ----
#define SEED_TILE 32
#define SEED_ROWS 8

__global__ void seed_naive(float *out, const float *in, int N) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < N && y < N) out[x * N + y] = in[y * N + x];
}

// The seed's shared-tile kernel with the row loop that a 32x8 block needs (the seed warns that
// without it a 32x8 block covers only a quarter of the tile). PADDED selects [32][33] vs [32][32].
template <int PADDED>
__global__ void seed_shared(float *out, const float *in, int N) {
  __shared__ float tile[SEED_TILE][SEED_TILE + PADDED];
  int x = blockIdx.x * SEED_TILE + threadIdx.x;
  int y = blockIdx.y * SEED_TILE + threadIdx.y;
  for (int j = 0; j < SEED_TILE; j += SEED_ROWS)
    if (x < N && y + j < N) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * N + x];
  __syncthreads();
  int x2 = blockIdx.y * SEED_TILE + threadIdx.x;
  int y2 = blockIdx.x * SEED_TILE + threadIdx.y;
  for (int j = 0; j < SEED_TILE; j += SEED_ROWS)
    if (x2 < N && y2 + j < N) out[(y2 + j) * N + x2] = tile[threadIdx.x][threadIdx.y + j];
}

// The cutune kernel's geometry, as lua/transpose_space.lua computes it.
static void best_geometry(int N, int M, dim3 *block, dim3 *grid) {
#if TILE == 0
  *block = dim3(32, BLOCK_ROWS);
  *grid = dim3(bench_cdiv(M, 32), bench_cdiv(N, BLOCK_ROWS));
#else
  *block = dim3(TILE / VEC, BLOCK_ROWS);
  *grid = dim3(bench_cdiv(M, TILE), bench_cdiv(bench_cdiv(N, TILE), TPB));
#endif
}

static std::string best_label(void) {
  char b[256];
  snprintf(b, sizeof b, "cutune best (TILE=%d PAD=%d SWIZZLE=%d BLOCK_ROWS=%d VEC=%d UNROLL=%d LDG=%d ORDER=%d TPB=%d)",
           TILE, PAD, SWIZZLE, BLOCK_ROWS, VEC, UNROLL, LDG, ORDER, TPB);
  return b;
}

struct row {
  int n;
  std::string name;
  double med_ms, min_ms;
  bool correct;
};

static void usage(void) {
  fprintf(stderr, "usage: transpose_bench [--sizes N,N,...] [--reps R (>=30)] [--csv FILE]\n");
  exit(2);
}

int main(int argc, char **argv) {
  std::vector<int> sizes = {8192, 4096, 16384};
  int reps = 50;
  const char *csv = nullptr;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
      sizes.clear();
      for (char *s = strtok(argv[++i], ","); s; s = strtok(nullptr, ",")) {
        int v = atoi(s);
        if (v <= 0 || v > 32768) { fprintf(stderr, "transpose_bench: bad size '%s' (1..32768)\n", s); return 2; }
        sizes.push_back(v);
      }
    } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = atoi(argv[++i]);
      if (reps < 30) { fprintf(stderr, "transpose_bench: --reps must be >= 30\n"); return 2; }
    } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
      csv = argv[++i];
    } else {
      usage();
    }
  }

  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s (sm_%d%d, %d SMs, L2 %d MB), %d timed runs each, median\n", prop.name, prop.major,
         prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20, reps);
  cublasHandle_t h;
  CKB(cublasCreate(&h));

  std::vector<row> rows;
  for (int N : sizes) {
    const size_t n = (size_t)N * N, bytes = n * sizeof(float);
    std::vector<float> hin(n), href(n), hout(n);
    unsigned s = 2463534242u ^ (unsigned)N;
    for (size_t i = 0; i < n; i++) {
      s ^= s << 13, s ^= s >> 17, s ^= s << 5;
      hin[i] = (float)(s >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
    }
    const int B = 64;  // blocked host transpose: the reference
    for (int y0 = 0; y0 < N; y0 += B)
      for (int x0 = 0; x0 < N; x0 += B)
        for (int y = y0; y < std::min(N, y0 + B); y++)
          for (int x = x0; x < std::min(N, x0 + B); x++) href[(size_t)x * N + y] = hin[(size_t)y * N + x];
    float *din, *dout;
    CK(cudaMalloc(&din, bytes));
    CK(cudaMalloc(&dout, bytes));
    CK(cudaMemcpy(din, hin.data(), bytes, cudaMemcpyHostToDevice));

    auto run = [&](const std::string &name, bool is_copy, auto op) {
      CK(cudaMemset(dout, 0xff, bytes));  // poison: NaN everywhere
      row r{N, name, 0, 0, false};
      bench_time(op, reps, &r.med_ms, &r.min_ms);
      CK(cudaMemcpy(hout.data(), dout, bytes, cudaMemcpyDeviceToHost));
      r.correct = memcmp(hout.data(), is_copy ? hin.data() : href.data(), bytes) == 0;
      rows.push_back(r);
    };

    run("cudaMemcpy D2D", true, [&] { CK(cudaMemcpyAsync(dout, din, bytes, cudaMemcpyDeviceToDevice)); });
    run("float4 copy kernel", true, [&] {
      long long n4 = (long long)(n / 4);
      bench_copy_float4<<<bench_cdiv(n4, 256), 256>>>((float4 *)dout, (const float4 *)din, n4);
    });
    run("cublasSgeam", false, [&] {
      // Column-major view: in is an N x N matrix A with lda N; C = A^T. B = C with beta 0
      // (cuBLAS's documented in-place form: ldb == ldc, transb N).
      const float one = 1.0f, zero = 0.0f;
      CKB(cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, N, N, &one, din, N, &zero, dout, N, dout, N));
    });
    run("seed naive (32x32 threads)", false, [&] {
      seed_naive<<<dim3(bench_cdiv(N, 32), bench_cdiv(N, 32)), dim3(32, 32)>>>(dout, din, N);
    });
    run("seed tile32 nopad (32x8)", false, [&] {
      seed_shared<0><<<dim3(bench_cdiv(N, SEED_TILE), bench_cdiv(N, SEED_TILE)), dim3(SEED_TILE, SEED_ROWS)>>>(dout, din, N);
    });
    run("seed tile32 pad1 (32x8)", false, [&] {
      seed_shared<1><<<dim3(bench_cdiv(N, SEED_TILE), bench_cdiv(N, SEED_TILE)), dim3(SEED_TILE, SEED_ROWS)>>>(dout, din, N);
    });
    run(best_label(), false, [&] {
      dim3 block, grid;
      best_geometry(N, N, &block, &grid);
      transpose<<<grid, block>>>(dout, din, N, N);
    });
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }
  CKB(cublasDestroy(h));

  FILE *f = nullptr;
  if (csv && !(f = fopen(csv, "w"))) {
    fprintf(stderr, "transpose_bench: cannot write %s\n", csv);
    return 1;
  }
  if (f) fprintf(f, "n,kernel,time_ms,min_ms,gbps,pct_memcpy,correct\n");
  bool all_ok = true;
  double memcpy_ms = 0;
  for (const row &r : rows) {
    if (r.name == "cudaMemcpy D2D") {
      memcpy_ms = r.med_ms;
      printf("\n%d x %d float32 (%.0f MB read + written)\n", r.n, r.n, 2.0 * 4 * r.n * r.n / 1e6);
      printf("  %-88s %9s %9s %9s %s\n", "kernel", "time ms", "GB/s", "% memcpy", "correct");
    }
    double gbps = 2.0 * 4 * (double)r.n * r.n / (r.med_ms * 1e-3) / 1e9;
    double pct = 100.0 * memcpy_ms / r.med_ms;
    printf("  %-88s %9.4f %9.1f %8.1f%% %s\n", r.name.c_str(), r.med_ms, gbps, pct, r.correct ? "yes" : "NO");
    if (f) fprintf(f, "%d,\"%s\",%.6f,%.6f,%.2f,%.2f,%d\n", r.n, r.name.c_str(), r.med_ms, r.min_ms, gbps, pct, r.correct);
    all_ok &= r.correct;
  }
  if (f) fclose(f);
  return all_ok ? 0 : 3;
}
