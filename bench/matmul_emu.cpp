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
//
// That order (thread 0..n-1, each to its next barrier; copies land at the wait, as late as they
// may) is one legal schedule of many: a thread that overwrites, through an early-landing
// cp.async, what a lower-numbered thread has already read passes there. MM_EMU_SEED=n (n > 0)
// runs the blocks under random schedules instead: the threads are resumed in a random order, a
// thread may also stop at every cp.async, commit and wait (another thread runs until its own
// next stop), and each copy lands at a random point between its issue and its wait (at the
// issue itself 1 time in 4). Hazards between the copies and other threads' reads in the same
// barrier interval then show as wrong values or poison. (Plain shared loads and stores are not
// stops: races between them need a missing barrier, which the plain order already catches.)
// Split-K clusters (SPLITK > 1) run as one set of coroutines: per-block and cluster barriers,
// distributed shared memory, a block's shared memory poisoned once its threads have ended.
// Stream-K (STREAMK > 0): each size is run on seven grids (one cluster, three, more clusters
// than tiles, one more than tiles, the H200's 132, more than tiles again, three with no
// workspace) on one workspace for the whole run, the clusters one after another (in launch
// order, or in a random order under MM_EMU_SEED, so that any cluster of a shared tile may be the
// last to get there); the partial tiles start as NaN, every access to them is bounds-checked
// (never inside the counters' fixed head), stores to them are seen by other clusters only after
// a release fence and read only after an acquire fence (see "the workspace" below), and the
// counters must be back at 0 after each launch. The last line prints a hash of the bits of
// every result: the same under every schedule when the sums are done in a fixed order.
//   ./emu M N K       checks one size instead of the seven below (eight with STREAMK).
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
static emu_dim3 threadIdx, blockIdx, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
template <class T> static inline T __ldg(const T *p) { return *p; }
static void __syncthreads(void);
static int __syncthreads_or(int p);
static float4 *mm_emu_smem(void);
static void mm_cp4(float *dst, const float *src, int src_bytes);
static void mm_cp16(float *dst, const float *src, int src_bytes);
static void mm_commit(void);
template <int N> static void mm_wait(void);
static void mm_cluster_arrive(void);
static void mm_cluster_wait(void);
static float4 mm_dsmem_ld4(const float *p, int rank);
// stream-K: global memory is the host's and the clusters run one after another (a legal
// schedule: no block waits for another). The workspace follows a memory model weaker than that
// order (below, "the workspace"): a store is seen by other clusters only after its thread's
// __threadfence, and another cluster's partial may be read only after a fence that follows the
// block's count (atomicAdd) -- the release/acquire pairs the GPU needs.
static unsigned atomicAdd(unsigned *p, unsigned v);
static void __threadfence(void);
static float4 __ldcg(const float4 *p);
static void __stcg(float4 *p, float4 v);
#define MM_EMU 1

#include "../templates/matmul.cu"

// ---- cp.async: per thread, a queue of (group, dst, value) completed by mm_wait ----
static const int kMaxThreads = 1024 * 8;  // a cluster of 8 blocks of 1024
struct pend { int group; float *dst; float v; };
static std::vector<pend> queue_of[kMaxThreads];
static int group_of[kMaxThreads];  // the group being filled (committed groups are below it)
static int cur;

// ---- random schedules (MM_EMU_SEED) ----
static uint64_t rng_state;  // 0: the plain schedule
static unsigned rnd_below(unsigned n) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return (unsigned)(rng_state >> 11) % n;
}
static void emu_stop(void);  // a point where the scheduler may run another thread
// lands some of this thread's queued copies (each 1 time in 4), as the hardware may at any time
static void land_some(void) {
  std::vector<pend> &q = queue_of[cur];
  size_t k = 0;
  for (size_t i = 0; i < q.size(); i++)
    if (rnd_below(4) == 0) *q[i].dst = q[i].v;
    else q[k++] = q[i];
  q.resize(k);
}

static void cp_elems(float *dst, const float *src, int n, int src_bytes) {
  for (int i = 0; i < n; i++) {
    const float v = 4 * i < src_bytes ? src[i] : 0.f;
    if (rng_state && rnd_below(4) == 0) dst[i] = v;  // lands at once
    else queue_of[cur].push_back({group_of[cur], dst + i, v});
  }
  if (rng_state) emu_stop();
}
static void mm_cp4(float *dst, const float *src, int src_bytes) { cp_elems(dst, src, 1, src_bytes); }
static void mm_cp16(float *dst, const float *src, int src_bytes) {
  if ((uintptr_t)dst % 16 || (src_bytes && (uintptr_t)src % 16)) {
    fprintf(stderr, "cp.async of 16 bytes at an address that is not 16-byte aligned\n");
    abort();
  }
  cp_elems(dst, src, 4, src_bytes);
}
static void mm_commit(void) {
  group_of[cur]++;
  if (rng_state) emu_stop();
}
template <int N> static void mm_wait(void) {
  if (rng_state) emu_stop();
  // complete every committed group but the N newest: groups < group_of - N
  std::vector<pend> &q = queue_of[cur];
  std::vector<pend> keep;
  for (const pend &p : q)
    if (p.group < group_of[cur] - N) *p.dst = p.v;
    else keep.push_back(p);
  q.swap(keep);
}

// ---- the cluster scheduler ----
// The threads of one cluster (SPLITK blocks; one block without split-K) are coroutines
// 0 .. SPLITK*MM_THREADS-1, block t / MM_THREADS. A thread stops at __syncthreads (until every
// thread of its block is there) and at mm_cluster_wait (until every thread of the cluster has
// made as many mm_cluster_arrive calls as the wait is the thread's n-th).
static const size_t kStack = 256 * 1024;
static ucontext_t sched_ctx, thr_ctx[kMaxThreads];
static char *stacks;
static int nthreads;  // of the cluster
static bool done[kMaxThreads], at_barrier[kMaxThreads], cwaiting[kMaxThreads];
static int arrives[kMaxThreads], waits[kMaxThreads];
static float *g_C, *g_smem[SPLITK];
static size_t g_smem_floats;
static int g_cluster;
static const float *g_A, *g_B;
static int g_M, g_N, g_K;
static const float kAlpha = 1.0f, kBeta = 0.5f;

static float4 *mm_emu_smem(void) { return reinterpret_cast<float4 *>(g_smem[cur / MM_THREADS]); }

// a thread's predicate at the block barrier it waits at, and (after the barrier) the block's OR
static int bar_pred[kMaxThreads], bar_or[kMaxThreads];

static void __syncthreads(void) {
  if (rng_state) land_some();
  at_barrier[cur] = true;
  swapcontext(&thr_ctx[cur], &sched_ctx);
}

// __syncthreads_or: the barrier, then the OR of every thread's predicate (release() computes it
// when the block's barrier completes); also the template's REGDB=2 barrier
static int __syncthreads_or(int p) {
  bar_pred[cur] = p != 0;
  __syncthreads();
  bar_pred[cur] = 0;
  return bar_or[cur];
}

// a stop (random schedules): back to the scheduler 1 time in 2, after landing some copies
static void emu_stop(void) {
  land_some();
  if (rnd_below(2)) return;
  swapcontext(&thr_ctx[cur], &sched_ctx);
}

static bool arrived;  // an arrival since the last release(): a cluster wait may be over

static void mm_cluster_arrive(void) {
  arrives[cur]++;
  arrived = true;
  if (rng_state) emu_stop();
}
static void mm_cluster_wait(void) {
  waits[cur]++;
  cwaiting[cur] = true;
  swapcontext(&thr_ctx[cur], &sched_ctx);
}
// distributed shared memory: the same offset in block `rank`'s buffer (poisoned once it exited)
static float4 mm_dsmem_ld4(const float *p, int rank) {
  const float *mine = g_smem[cur / MM_THREADS];
  const size_t off = (size_t)(p - mine);
  if (rank < 0 || rank >= SPLITK || p < mine || off + 4 > g_smem_floats || off % 4) {
    fprintf(stderr, "distributed shared memory load out of bounds: rank %d, offset %lld\n", rank, (long long)(p - mine));
    abort();
  }
  const float *q = g_smem[rank] + off;
  const float4 v = {q[0], q[1], q[2], q[3]};
  if (rng_state) emu_stop();
  return v;
}

// ---- the workspace ----
// One buffer for the whole run, as the tuner's worker, the bench harnesses and the launcher share
// one between configurations and grids: its counters are zeroed once, at the start, and must be
// 0 after every launch; its partial tiles are NaN before each launch (what a launch reads of
// them it must have written). A store to a partial tile is held in its thread until the thread's
// __threadfence (stores still held when the thread ends, or when its block counts itself in a
// tile, become visible only after the whole launch: as late as the hardware may); a load sees this thread's own held stores, else what is visible,
// and when that was written by another cluster the thread must have fenced after its block's
// last count (otherwise the load could have been served before the count that says the partial
// is complete).
static std::vector<float> g_wsbuf;
static std::vector<int> g_ws_writer;  // per float4 of the buffer: 1 + the cluster that wrote it
static float *g_ws;
static int g_ws_floats;
struct wpend { float4 *p; float4 v; };
static std::vector<wpend> wheld_of[kMaxThreads], wlate;
static long long count_epoch[SPLITK], fence_epoch[kMaxThreads];
static long long ws_index(const void *p) {
  const float *f = static_cast<const float *>(p);
  if (f < g_ws + MM_WS_COUNTERS || f + 4 > g_ws + g_ws_floats || (uintptr_t)p % 16) {
    fprintf(stderr, "workspace access out of the partial tiles: float %lld of %d (counters: the first %d)\n",
            (long long)(f - g_ws), g_ws_floats, MM_WS_COUNTERS);
    abort();
  }
  return (f - g_ws) / 4;
}
static void ws_apply(const wpend &w) {
  *w.p = w.v;
  g_ws_writer[(size_t)ws_index(w.p)] = 1 + g_cluster;
}
static unsigned atomicAdd(unsigned *p, unsigned v) {
  const unsigned old = *p;
  *p = old + v;
  const int b = cur / MM_THREADS;
  count_epoch[b]++;
  // the block's stores not fenced before its count are not published by it: visible too late
  for (int t = b * MM_THREADS; t < (b + 1) * MM_THREADS; t++) {
    for (const wpend &w : wheld_of[t]) wlate.push_back(w);
    wheld_of[t].clear();
  }
  return old;
}
static void __threadfence(void) {
  for (const wpend &w : wheld_of[cur]) ws_apply(w);
  wheld_of[cur].clear();
  fence_epoch[cur] = count_epoch[cur / MM_THREADS];
}
static void __stcg(float4 *p, float4 v) {
  ws_index(p);
  wheld_of[cur].push_back({p, v});
}
static float4 __ldcg(const float4 *p) {
  const long long i = ws_index(p);
  const std::vector<wpend> &h = wheld_of[cur];
  for (size_t k = h.size(); k-- > 0;)
    if (h[k].p == p) return h[k].v;
  const int w = g_ws_writer[(size_t)i];
  if (w && w != 1 + g_cluster && fence_epoch[cur] < count_epoch[cur / MM_THREADS]) {
    fprintf(stderr, "a partial tile of cluster %d read by cluster %d with no fence after its count (no acquire)\n", w - 1,
            g_cluster);
    abort();
  }
  return *p;
}

static void thread_entry(void) {
  matmul(g_C, g_A, g_B, g_M, g_N, g_K, kAlpha, kBeta, GROUPM, g_ws, g_ws_floats);
  for (const wpend &w : wheld_of[cur]) wlate.push_back(w);  // never fenced: visible after the launch
  wheld_of[cur].clear();
  if (!queue_of[cur].empty()) {
    fprintf(stderr, "a thread ended with %zu cp.async elements never waited for\n", queue_of[cur].size());
    abort();
  }
  done[cur] = true;
}

static void resume(int t) {
  cur = t;
  threadIdx = {(unsigned)(t % MM_THREADS), 0, 0};
  blockIdx = {(unsigned)(g_cluster * SPLITK + t / MM_THREADS), 0, 0};
  swapcontext(&sched_ctx, &thr_ctx[t]);
  // a block whose threads have all ended leaves the cluster: what its peers read of its shared
  // memory after that is poison
  const int b = t / MM_THREADS;
  if (done[t]) {
    int n = 0;
    for (int u = b * MM_THREADS; u < (b + 1) * MM_THREADS; u++) n += done[u];
    if (n == MM_THREADS)
      for (size_t i = 0; i < g_smem_floats; i++) g_smem[b][i] = NAN;
  }
}

// Releases what can be released: a block barrier that all of the block's threads reached, the
// cluster waits whose arrivals are all in. Returns how many threads it released, -1 on a
// divergence (a block barrier that some of the block's threads can never reach).
static int release(void) {
  int freed = 0, least = 1 << 30;
  for (int t = 0; t < nthreads; t++)
    if (arrives[t] < least) least = arrives[t];
  for (int t = 0; t < nthreads; t++)
    if (cwaiting[t] && waits[t] <= least) cwaiting[t] = false, freed++;
  for (int b = 0; b < nthreads / MM_THREADS; b++) {
    int nbar = 0, ndone = 0;
    for (int t = b * MM_THREADS; t < (b + 1) * MM_THREADS; t++) nbar += at_barrier[t], ndone += done[t];
    if (nbar && ndone) {
      fprintf(stderr, "barrier divergence in block %d: %d threads done, %d at a barrier of %d\n", b, ndone, nbar, MM_THREADS);
      return -1;
    }
    if (nbar == MM_THREADS) {
      int any = 0;
      for (int t = b * MM_THREADS; t < (b + 1) * MM_THREADS; t++) any |= bar_pred[t];
      for (int t = b * MM_THREADS; t < (b + 1) * MM_THREADS; t++) at_barrier[t] = false, bar_or[t] = any;
      freed += nbar;
    }
  }
  return freed;
}

static bool runnable(int t) { return !done[t] && !at_barrier[t] && !cwaiting[t]; }

// Random schedules: stragglers. At each release a block is slow with probability 1/3 and any
// thread with 1/8: a slow thread is picked 256 times less often, so that one block (or warp) can
// still be reading when the others have run far ahead, as on a GPU.
static unsigned weight[kMaxThreads];
static void draw_weights(void) {
  for (int b = 0; b < nthreads / MM_THREADS; b++) {
    const bool slow_block = rnd_below(3) == 0;
    for (int t = b * MM_THREADS; t < (b + 1) * MM_THREADS; t++) weight[t] = slow_block || rnd_below(8) == 0 ? 1 : 256;
  }
}
static int pick(const std::vector<int> &ready) {
  unsigned total = 0;
  for (int t : ready) total += weight[t];
  unsigned r = rnd_below(total);
  for (int t : ready) {
    if (r < weight[t]) return t;
    r -= weight[t];
  }
  return ready.back();
}

// Runs the cluster to its end: the plain schedule (every runnable thread in turn, 0..n-1, each
// to its next stop) or a random one (a random runnable thread until it stops). -1: divergence
// or deadlock.
static int run_cluster(void) {
  for (int t = 0; t < nthreads; t++) {
    done[t] = at_barrier[t] = cwaiting[t] = false;
    arrives[t] = waits[t] = 0;
    queue_of[t].clear();
    bar_pred[t] = 0;
    group_of[t] = 0;
    wheld_of[t].clear();
    fence_epoch[t] = 0;
    getcontext(&thr_ctx[t]);
    thr_ctx[t].uc_stack.ss_sp = stacks + (size_t)t * kStack;
    thr_ctx[t].uc_stack.ss_size = kStack;
    thr_ctx[t].uc_link = &sched_ctx;
    makecontext(&thr_ctx[t], thread_entry, 0);
  }
  for (int b = 0; b < SPLITK; b++) count_epoch[b] = 0;
  std::vector<int> ready;
  if (rng_state) draw_weights();
  for (;;) {
    // a cluster wait ends as soon as the last arrival is in, while other threads still run
    if (arrived && rng_state) {
      arrived = false;
      const int freed = release();
      if (freed < 0) return -1;
      if (freed) draw_weights();
    }
    ready.clear();
    int ndone = 0;
    for (int t = 0; t < nthreads; t++) {
      ndone += done[t];
      if (runnable(t)) ready.push_back(t);
    }
    if (ndone == nthreads) return 0;
    if (ready.empty()) {
      const int freed = release();
      if (freed < 0) return -1;
      if (rng_state) draw_weights();
      if (freed == 0) {
        fprintf(stderr, "deadlock: %d of %d threads done, the others wait at barriers that cannot complete\n", ndone, nthreads);
        return -1;
      }
      continue;
    }
    if (rng_state) resume(pick(ready));
    else
      for (int t : ready) resume(t);
  }
}

// Geometry and shared memory exactly as lua/matmul_space.lua computes them.
static size_t smem_bytes(void) {
  const size_t pipe = (size_t)MM_NBUF * BK * (BM + PAD + BN) * 4, tile = (size_t)BM * BN * 4;
  return (SPLITK > 1 || STREAMK > 0) && tile > pipe ? tile : pipe;  // the partial tile, the stream-K sum
}

// One launch over a grid of `clusters` clusters (the plain schedule: in order; a random one: in a
// random order, so that any cluster of a shared stream-K tile may be the last to get there),
// with ws_floats floats of the run's workspace (its partial tiles NaN, its counters as the last
// launch left them: 0); the counters must be zero again afterwards. Returns 0 if it ran to its
// end.
static int launch(int clusters, int ws_floats) {
  gridDim = {(unsigned)(clusters * SPLITK), 1, 1};
  if (ws_floats && (size_t)ws_floats > g_wsbuf.size()) {  // grown: the new part NaN, counters kept
    const size_t old = g_wsbuf.size();
    g_wsbuf.resize((size_t)ws_floats, NAN);
    for (size_t i = old; i < (size_t)MM_WS_COUNTERS && i < g_wsbuf.size(); i++) g_wsbuf[i] = 0.f;  // counters: 0u
  }
  for (size_t i = MM_WS_COUNTERS; i < g_wsbuf.size(); i++) g_wsbuf[i] = NAN;
  g_ws_writer.assign(g_wsbuf.size() / 4 + 1, 0);
  wlate.clear();
  std::vector<float> &ws = g_wsbuf;
  g_ws = ws_floats ? ws.data() : nullptr, g_ws_floats = ws_floats;
  std::vector<int> order((size_t)clusters);
  for (int c = 0; c < clusters; c++) order[(size_t)c] = c;
  for (int c = clusters - 1; rng_state && c > 0; c--) std::swap(order[(size_t)c], order[rnd_below((unsigned)c + 1)]);
  const size_t sb = smem_bytes();
  g_smem_floats = sb / 4;
  for (int c : order) {
    g_cluster = c;
    for (int r = 0; r < SPLITK; r++) {
      g_smem[r] = static_cast<float *>(aligned_alloc(16, (sb + 15) / 16 * 16));  // ASan: exact-ish bounds
      for (size_t i = 0; i < sb / 4; i++) g_smem[r][i] = NAN;
    }
    int rc = run_cluster();
    for (int r = 0; r < SPLITK; r++) free(g_smem[r]);
    if (rc) return -1;
  }
  for (const wpend &w : wlate) *w.p = w.v;
  for (size_t i = 0; i < (size_t)MM_WS_COUNTERS && i < ws.size(); i++)
    if (ws[i] != 0.f) {
      fprintf(stderr, "stream-K counter %zu is %u, not 0, after a launch of %d clusters\n", i, *reinterpret_cast<unsigned *>(&ws[i]), clusters);
      return -1;
    }
  return 0;
}

// FNV-1a over the bits of every result: the same in every schedule when the sums are done in a
// fixed order (the stream-K partials in cluster order, whichever cluster gets there last)
static uint64_t bits_hash = 1469598103934665603ull;

static int compare(int M, int N, int K, const std::vector<float> &A, const std::vector<float> &B,
                   const std::vector<float> &C0, const std::vector<float> &C, const char *what) {
  for (float c : C) {
    uint32_t u;
    memcpy(&u, &c, 4);
    bits_hash = (bits_hash ^ u) * 1099511628211ull;
  }
  size_t bad = 0;
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double r = 0;
      for (int k = 0; k < K; k++) r += (double)A[(size_t)m * K + k] * B[(size_t)k * N + n];
      r = kAlpha * r + kBeta * (double)C0[(size_t)m * N + n];
      double c = C[(size_t)m * N + n];
      double e = fabs(c - r) / (fabs(r) > 1 ? fabs(r) : 1);
      if (!(e <= 1e-4)) {
        if (bad < 3) fprintf(stderr, "M=%d N=%d K=%d%s: C[%d][%d] = %g, expected %g\n", M, N, K, what, m, n, c, r);
        bad++;
      }
    }
  if (bad) {
    fprintf(stderr, "M=%d N=%d K=%d%s: %zu of %zu elements wrong\n", M, N, K, what, bad, (size_t)M * N);
    return -1;
  }
  return 0;
}

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
  nthreads = MM_THREADS * SPLITK;
  const int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
#if STREAMK
  // Stream-K grids, one after another on the run's one workspace: one cluster (every tile whole,
  // in turn); 3 (a few tiles cut between two); more clusters than tiles (every tile cut, runs
  // inside one tile, runs with no k tile when there are more clusters than k tiles); one more
  // than tiles (cluster 0's first tile cut: its partial in the first slot); the H200's 132 (its
  // SMs: many tiles cut, few k tiles each, as at 8192x8192x256); more than tiles again (after
  // smaller grids: the sizes of the workspace's parts must not depend on the grid); and 3 with
  // no workspace (whole tiles in turn).
  const long long T = (long long)tiles * (K > BK ? (K + BK - 1) / BK : 1);
  const int grids[][2] = {{1, 1}, {3, 1}, {2 * tiles + 1, 1}, {tiles + 1, 1}, {132, 1}, {2 * tiles + 1, 1}, {3, 0}};
  for (const int *g : grids) {
    const int clusters = (int)(g[0] < T + 2 ? g[0] : T + 2);
    char what[64];
    snprintf(what, sizeof what, " (%d clusters%s)", clusters, g[1] ? "" : ", no workspace");
    C = C0;
    g_C = C.data();
    if (launch(clusters, g[1] ? (int)MM_WS_FLOATS(clusters * SPLITK) : 0) != 0) return -1;
    if (compare(M, N, K, A, B, C0, C, what) != 0) return -1;
  }
  return 0;
#else
  if (launch(tiles, 0) != 0) return -1;  // the grid is tiles * SPLITK blocks
  return compare(M, N, K, A, B, C0, C, "");
#endif
}

int main(int argc, char **argv) {
  stacks = static_cast<char *>(malloc(kStack * MM_THREADS * SPLITK));
  const char *seed = getenv("MM_EMU_SEED");
  rng_state = seed ? strtoull(seed, NULL, 10) * 0x9E3779B97F4A7C15ull : 0;
  if (!rng_state) seed = NULL;
  // aligned, one tile and more; ragged in every dimension; N % 4 != 0 and K % 4 != 0 (scalar paths);
  // K smaller than BK (with SPLITK, slices without a k tile); more k tiles than pipeline stages; K
  // and the k tiles not a multiple of the split, with N % 4 != 0
  static const int sizes[][3] = {{BM, BN, 4 * BK}, {2 * BM, BN, 5 * BK + 4}, {BM + 3, BN + 5, 2 * BK + 3},
                                 {37, 45, 29}, {BM - 1, 2 * BN - 4, 7}, {BM + 1, 8, 6 * BK},
                                 {2 * BM - 5, BN + 3, (3 * SPLITK + 1) * BK + 5}
#if STREAMK
                                 // stream-K: 36 tiles of 3 k tiles, so that its grids of 73 and 37 clusters
                                 // and the H200's 132 cut many tiles (8192x8192x256 on the GPU)
                                 , {6 * BM, 6 * BN - 1, 3 * BK}
#endif
  };
  int bad = 0;
  if (argc == 4) {
    bad = check(atoi(argv[1]), atoi(argv[2]), atoi(argv[3])) != 0;
  } else {
    const int n = argc > 1 ? atoi(argv[1]) : (int)(sizeof sizes / sizeof sizes[0]);
    for (int i = 0; i < n; i++) {
      const int *z = sizes[i];
      if (check(z[0], z[1], z[2]) != 0) bad = 1;
    }
  }
  printf("%s: BM=%d BN=%d BK=%d WM=%d WN=%d TM=%d TN=%d STAGES=%d SDB=%d PAD=%d REGDB=%d UNROLL=%d HOIST=%d SPLITK=%d STREAMK=%d%s%s bits=%016llx\n",
         bad ? "WRONG" : "correct", BM, BN, BK, WM, WN, TM, TN, STAGES, SDB, PAD, REGDB, UNROLL, HOIST, SPLITK, STREAMK,
         seed ? " seed=" : "", seed ? seed : "", (unsigned long long)bits_hash);
  free(stacks);
  return bad;
}
