// matmul_recheck: one configuration of templates/matmul.cu (its -D flags on the nvcc line) run
// many times at N x N x N (or M x N x K) on the same inputs, every output checked against a float64 reference
// with the tuner's tolerance, and the wrong elements of the first failing run located in the
// kernel's geometry (block, warp, lane, thread-tile row i and column j) and explained (the delta
// against one product A[m][k]*B[k][n] or one BK slice of them). For a failure that shows once in
// thousands of checks (bench/matmul_recheck.sh says which): whether it repeats, and where.
//
//   nvcc -O3 -arch=sm_90 -DBM=32 ... -o recheck bench/matmul_recheck.cu
//   ./recheck [--size 4096 | --mnk M N K] [--reps 200]
//   (-DMM_TEMPLATE='"path"' includes another copy of the template: the diagnostic variants)
//
// Output: one line "RESULT <config> reps=R failed_runs=F max_wrong=W" and, for a failing run,
// the histograms. Exit status 0 iff every run matched.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#ifndef MM_TEMPLATE
#define MM_TEMPLATE "../templates/matmul.cu"
#endif
#include MM_TEMPLATE

#include "bench_common.cuh" // CK
#include "matmul_grid.cuh"

// the reference: one element per thread, float64, k = 0..K-1 (as the template's matmul_ref)
__global__ void ref_kernel(float *R, const float *A, const float *B, const float *C0, int M, int N, int K, float alpha,
                           float beta) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  double s = 0;
  for (int k = 0; k < K; k++) s += (double)A[(size_t)row * K + k] * (double)B[(size_t)k * N + col];
  R[(size_t)row * N + col] = (float)((double)alpha * s + (double)beta * (double)C0[(size_t)row * N + col]);
}

// as the tuner's comparison: |c - r| <= tol * max(1, |r|); counts[0] = wrong, counts[1] = first
__global__ void cmp_kernel(const float *C, const float *R, size_t n, double tol, unsigned long long *counts) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const double c = C[i], r = R[i], a = fabs(r) > 1 ? fabs(r) : 1;
    if (!(fabs(c - r) <= tol * a)) {
      atomicAdd(&counts[0], 1ull);
      atomicMin(&counts[1], (unsigned long long)i);
    }
  }
}

static void hist(const char *what, const std::map<int, int> &h) {
  printf("  by %s:", what);
  int shown = 0;
  for (auto &kv : h) {
    if (shown++ == 40) { printf(" ..."); break; }
    printf(" %d:%d", kv.first, kv.second);
  }
  printf("\n");
}

int main(int argc, char **argv) {
  int M = 4096, N = 4096, K = 4096, reps = 200;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc) M = N = K = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--mnk") && i + 3 < argc) M = atoi(argv[i + 1]), N = atoi(argv[i + 2]), K = atoi(argv[i + 3]), i += 3;
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else { fprintf(stderr, "usage: %s [--size N | --mnk M N K] [--reps R]\n", argv[0]); return 2; }
  }
  if (M < 1 || N < 1 || K < 1 || reps < 1) { fprintf(stderr, "%s: sizes and reps must be positive\n", argv[0]); return 2; }
  const float alpha = 1.0f, beta = 0.5f;
  const double tol = 4.0 * K / 16777216.0;  // 4 u K: lua/matmul_space.lua's tolerance
  const size_t na = (size_t)M * K, nb = (size_t)K * N, nn = (size_t)M * N;
  std::vector<float> hA(na), hB(nb), hC0(nn), hC(nn), hR(nn);
  unsigned s = 12345u;
  auto rnd = [&]() { s = s * 1664525u + 1013904223u; return (float)(s >> 8) / 8388608.0f - 1.0f; };
  for (auto &x : hA) x = rnd();
  for (auto &x : hB) x = rnd();
  for (auto &x : hC0) x = rnd();
  float *A, *B, *C0, *C, *R;
  unsigned long long *counts;
  CK(cudaMalloc(&A, na * 4)); CK(cudaMalloc(&B, nb * 4)); CK(cudaMalloc(&C0, nn * 4));
  CK(cudaMalloc(&C, nn * 4)); CK(cudaMalloc(&R, nn * 4)); CK(cudaMalloc(&counts, 16));
  CK(cudaMemcpy(A, hA.data(), na * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(B, hB.data(), nb * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(C0, hC0.data(), nn * 4, cudaMemcpyHostToDevice));
  ref_kernel<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(R, A, B, C0, M, N, K, alpha, beta);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hR.data(), R, nn * 4, cudaMemcpyDeviceToHost));

  mm_plan plan = mm_plan_for(M, N, K);
  const size_t smem = plan.smem;
  CK(cudaFuncSetAttribute(matmul, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  const unsigned grid = plan.grid;
  int failed = 0;
  unsigned long long max_wrong = 0, total_wrong = 0;
  bool analysed = false;
  for (int r = 0; r < reps; r++) {
    const unsigned long long init[2] = {0, ~0ull};
    CK(cudaMemcpy(C, C0, nn * 4, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(counts, init, 16, cudaMemcpyHostToDevice));
    matmul<<<grid, MM_THREADS, smem>>>(C, A, B, M, N, K, alpha, beta, GROUPM, plan.ws, plan.ws_floats);
    CK(cudaGetLastError());
    cmp_kernel<<<1024, 256>>>(C, R, nn, tol, counts);
    unsigned long long got[2];
    CK(cudaMemcpy(got, counts, 16, cudaMemcpyDeviceToHost));
    if (!got[0]) continue;
    failed++;
    total_wrong += got[0];
    if (got[0] > max_wrong) max_wrong = got[0];
    printf("run %d: %llu wrong, first at %llu\n", r, got[0], got[1]);
    if (analysed) continue;
    analysed = true;
    // where the wrong elements are, in the kernel's geometry (GROUPM changes only which block
    // computes a tile, not the tile's inner layout)
    CK(cudaMemcpy(hC.data(), C, nn * 4, cudaMemcpyDeviceToHost));
    std::map<int, int> by_warp, by_lane, by_i, by_j, by_tile, by_k, by_slice;
    int explained_k = 0, explained_slice = 0, looked = 0;
    for (size_t e = 0; e < nn; e++) {
      const double ref = hR[e], c = hC[e];
      if (fabs(c - ref) <= tol * (fabs(ref) > 1 ? fabs(ref) : 1)) continue;
      const int m = (int)(e / N), col = (int)(e % N);
      const int rb = m % BM, cb = col % BN;
      const int warp = (rb / WM) * MM_WARPS_N + cb / WN, rw = rb % WM, cw = cb % WN;
      const int ly = (rw % (MM_LM * 4)) / 4, lx = (cw % (MM_LN * 4)) / 4;
      by_warp[warp]++;
      by_lane[ly * MM_LN + lx]++;
      by_i[(rw / (MM_LM * 4)) * 4 + rw % 4]++;
      by_j[(cw / (MM_LN * 4)) * 4 + cw % 4]++;
      by_tile[(m / BM) * ((N + BN - 1) / BN) + col / BN]++;
      if (looked < 2000) {  // explain the delta: one product, or one BK slice, missing or doubled
        looked++;
        const double d = (c - ref) / alpha;
        int bk = -1, bs = -1;
        double best = 1e30, bests = 1e30;
        for (int k = 0; k < K; k++) {
          const double p = (double)hA[(size_t)m * K + k] * hB[(size_t)k * N + col];
          if (fmin(fabs(d + p), fabs(d - p)) < best) best = fmin(fabs(d + p), fabs(d - p)), bk = k;
        }
        for (int t = 0; t < (K + BK - 1) / BK; t++) {
          double p = 0;
          for (int k = t * BK; k < (t + 1) * BK && k < K; k++) p += (double)hA[(size_t)m * K + k] * hB[(size_t)k * N + col];
          if (fmin(fabs(d + p), fabs(d - p)) < bests) bests = fmin(fabs(d + p), fabs(d - p)), bs = t;
        }
        if (best < 1e-3) explained_k++, by_k[bk % BK]++;
        if (bests < 1e-3) explained_slice++, by_slice[bs % STAGES]++;
      }
    }
    printf("  tiles of C touched: %zu; of %d wrong elements looked at: %d are one product off (by k %% BK below),"
           " %d one BK slice off (by slice %% STAGES below)\n",
           by_tile.size(), looked, explained_k, explained_slice);
    hist("warp", by_warp);
    hist("lane", by_lane);
    hist("thread-tile row i", by_i);
    hist("thread-tile column j", by_j);
    hist("k % BK of the product", by_k);
    hist("k-slice % STAGES", by_slice);
  }
  printf("RESULT BM=%d BN=%d BK=%d WM=%d WN=%d TM=%d TN=%d STAGES=%d SDB=%d PAD=%d REGDB=%d UNROLL=%d GROUPM=%d HOIST=%d%s"
         " size=%dx%dx%d reps=%d failed_runs=%d max_wrong=%llu total_wrong=%llu\n",
         BM, BN, BK, WM, WN, TM, TN, STAGES, SDB, PAD, REGDB, UNROLL, GROUPM, HOIST,
         strcmp(MM_TEMPLATE, "../templates/matmul.cu") ? " (patched template)" : "", M, N, K, reps, failed, max_wrong, total_wrong);
  return failed ? 1 : 0;
}
