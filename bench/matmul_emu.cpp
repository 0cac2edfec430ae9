// matmul_emu: runs templates/matmul.cu on the CPU, one CUDA thread per coroutine, to check the
// template's indexing, barriers and cp.async waits without a GPU (a wrong variant costs a GPU run).
//
//   g++ -O1 -std=c++17 -fsanitize=address -Wno-unknown-pragmas -DBM=128 ... bench/matmul_emu.cpp -o emu && ./emu
//   (bench/matmul_emu.sh drives it over a list of configurations read from stdin.)
//
// Each block's threads are ucontext coroutines; __syncthreads() switches back to the scheduler,
// which resumes every thread of the block in turn, so the code between two barriers runs in full
// for each thread before any thread passes the barrier. A missing barrier therefore shows: a
// thread that reads what another thread writes after the same barrier reads the NaN poison (the
// dynamic shared memory is poisoned before each block), and a thread that overwrites what another
// still has to read destroys it before that thread runs. cp.async copies are queued per thread
// and done only when mm_wait lets them complete (all but the N newest groups), so a read before
// the right wait also reads poison. AddressSanitizer catches global and shared accesses out of
// bounds (the shared buffer is allocated with exactly the bytes lua/matmul_space.lua asks for).
// C is checked against a float64 product with a relative tolerance of 1e-4 (K <= 300 here).
// Exit status 0 iff every size is correct.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ucontext.h>
#include <vector>

// ---- just enough CUDA for the template ----
struct float4 { float x, y, z, w; };
static inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
struct emu_dim3 { unsigned x, y, z; };
static emu_dim3 threadIdx, blockIdx;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
template <class T> static inline T __ldg(const T *p) { return *p; }
static void __syncthreads(void);
static float4 *mm_emu_smem(void);
static void mm_cp4(float *dst, const float *src, int src_bytes);
static void mm_cp16(float *dst, const float *src, int src_bytes);
static void mm_commit(void);
template <int N> static void mm_wait(void);
#define MM_EMU 1

#include "../templates/matmul.cu"

// ---- cp.async: per thread, a queue of (group, dst, value) completed by mm_wait ----
static const int kMaxThreads = 1024;
struct pend { int group; float *dst; float v; };
static std::vector<pend> queue_of[kMaxThreads];
static int group_of[kMaxThreads];  // the group being filled (committed groups are below it)
static int cur;

static void cp_elems(float *dst, const float *src, int n, int src_bytes) {
  for (int i = 0; i < n; i++) queue_of[cur].push_back({group_of[cur], dst + i, 4 * i < src_bytes ? src[i] : 0.f});
}
static void mm_cp4(float *dst, const float *src, int src_bytes) { cp_elems(dst, src, 1, src_bytes); }
static void mm_cp16(float *dst, const float *src, int src_bytes) {
  if ((uintptr_t)dst % 16 || (src_bytes && (uintptr_t)src % 16)) {
    fprintf(stderr, "cp.async of 16 bytes at an address that is not 16-byte aligned\n");
    abort();
  }
  cp_elems(dst, src, 4, src_bytes);
}
static void mm_commit(void) { group_of[cur]++; }
template <int N> static void mm_wait(void) {
  // complete every committed group but the N newest: groups < group_of - N
  std::vector<pend> &q = queue_of[cur];
  std::vector<pend> keep;
  for (const pend &p : q)
    if (p.group < group_of[cur] - N) *p.dst = p.v;
    else keep.push_back(p);
  q.swap(keep);
}

// ---- the block scheduler ----
static const size_t kStack = 256 * 1024;
static ucontext_t sched_ctx, thr_ctx[kMaxThreads];
static char *stacks;
static int nthreads;
static bool done[kMaxThreads], at_barrier[kMaxThreads];
static float *g_C, *g_smem;
static const float *g_A, *g_B;
static int g_M, g_N, g_K;
static const float kAlpha = 1.0f, kBeta = 0.5f;

static float4 *mm_emu_smem(void) { return reinterpret_cast<float4 *>(g_smem); }

static void __syncthreads(void) {
  at_barrier[cur] = true;
  swapcontext(&thr_ctx[cur], &sched_ctx);
}

static void thread_entry(void) {
  matmul(g_C, g_A, g_B, g_M, g_N, g_K, kAlpha, kBeta);
  if (!queue_of[cur].empty()) {
    fprintf(stderr, "a thread ended with %zu cp.async elements never waited for\n", queue_of[cur].size());
    abort();
  }
  done[cur] = true;
}

static int run_block(void) {
  for (int t = 0; t < nthreads; t++) {
    done[t] = at_barrier[t] = false;
    queue_of[t].clear();
    group_of[t] = 0;
    getcontext(&thr_ctx[t]);
    thr_ctx[t].uc_stack.ss_sp = stacks + (size_t)t * kStack;
    thr_ctx[t].uc_stack.ss_size = kStack;
    thr_ctx[t].uc_link = &sched_ctx;
    makecontext(&thr_ctx[t], thread_entry, 0);
  }
  for (;;) {
    int ndone = 0, nbar = 0;
    for (int t = 0; t < nthreads; t++) {
      if (done[t]) continue;
      at_barrier[t] = false;
      cur = t;
      threadIdx = {(unsigned)t, 0, 0};
      swapcontext(&sched_ctx, &thr_ctx[t]);
    }
    for (int t = 0; t < nthreads; t++) {
      ndone += done[t];
      nbar += at_barrier[t];
    }
    if (ndone == nthreads) break;
    if (ndone + nbar != nthreads || ndone) {
      fprintf(stderr, "barrier divergence: %d threads done, %d at a barrier of %d\n", ndone, nbar, nthreads);
      return -1;
    }
  }
  return 0;
}

// Geometry and shared memory exactly as lua/matmul_space.lua computes them.
static size_t smem_bytes(void) { return (size_t)MM_NBUF * BK * (BM + PAD + BN) * 4; }

static int check(int M, int N, int K) {
  std::vector<float> A((size_t)M * K), B((size_t)K * N), C((size_t)M * N), C0;
  uint32_t s = 12345u + (uint32_t)M * 7u + (uint32_t)N * 13u + (uint32_t)K;
  auto rnd = [&]() { s = s * 1664525u + 1013904223u; return (float)(s >> 8) / 8388608.0f - 1.0f; };
  for (float &x : A) x = rnd();
  for (float &x : B) x = rnd();
  for (float &x : C) x = rnd();
  C0 = C;
  g_A = A.data(), g_B = B.data(), g_C = C.data();
  g_M = M, g_N = N, g_K = K;
  nthreads = MM_THREADS;
  const int gm = (M + BM - 1) / BM, gn = (N + BN - 1) / BN;
  const size_t sb = smem_bytes();
  for (int b = 0; b < gm * gn; b++) {
    blockIdx = {(unsigned)b, 0, 0};
    float *sm = static_cast<float *>(aligned_alloc(16, (sb + 15) / 16 * 16));  // ASan: exact-ish bounds
    for (size_t i = 0; i < sb / 4; i++) sm[i] = NAN;
    g_smem = sm;
    int rc = run_block();
    free(sm);
    if (rc) return -1;
  }
  size_t bad = 0;
  double worst = 0;
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double r = 0;
      for (int k = 0; k < K; k++) r += (double)A[(size_t)m * K + k] * B[(size_t)k * N + n];
      r = kAlpha * r + kBeta * (double)C0[(size_t)m * N + n];
      double c = C[(size_t)m * N + n];
      double e = fabs(c - r) / (fabs(r) > 1 ? fabs(r) : 1);
      if (!(e <= 1e-4)) {
        if (bad < 3) fprintf(stderr, "M=%d N=%d K=%d: C[%d][%d] = %g, expected %g\n", M, N, K, m, n, c, r);
        bad++;
      }
      if (e > worst) worst = e;
    }
  if (bad) {
    fprintf(stderr, "M=%d N=%d K=%d: %zu of %zu elements wrong\n", M, N, K, bad, (size_t)M * N);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  stacks = static_cast<char *>(malloc(kStack * MM_THREADS));
  // aligned, one tile and more; ragged in every dimension; N % 4 != 0 and K % 4 != 0 (scalar paths);
  // K smaller than BK; more k tiles than pipeline stages
  static const int sizes[][3] = {{BM, BN, 4 * BK}, {2 * BM, BN, 5 * BK + 4}, {BM + 3, BN + 5, 2 * BK + 3},
                                 {37, 45, 29}, {BM - 1, 2 * BN - 4, 7}, {BM + 1, 8, 6 * BK}};
  int n = argc > 1 ? atoi(argv[1]) : (int)(sizeof sizes / sizeof sizes[0]);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    const int *z = sizes[i];
    if (check(z[0], z[1], z[2]) != 0) bad = 1;
  }
  printf("%s: BM=%d BN=%d BK=%d WM=%d WN=%d TM=%d TN=%d STAGES=%d SDB=%d PAD=%d REGDB=%d UNROLL=%d HOIST=%d\n",
         bad ? "WRONG" : "correct", BM, BN, BK, WM, WN, TM, TN, STAGES, SDB, PAD, REGDB, UNROLL, HOIST);
  free(stacks);
  return bad;
}
