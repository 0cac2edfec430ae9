// transpose_emu: runs templates/transpose.cu on the CPU, one CUDA thread per coroutine, to check
// the template's indexing without a GPU (a wrong template costs a GPU run) and to count the
// shared-memory bank conflicts of each variant.
//
//   g++ -O1 -std=c++17 -fsanitize=address -DTILE=64 -DVEC=4 ... bench/transpose_emu.cpp -o emu && ./emu
//   (bench/emu_check.sh drives it over a list of configurations read from stdin.)
//
// Each block's threads are ucontext coroutines; __syncthreads() switches back to the scheduler,
// which resumes every thread of the block in turn, so the code between barriers runs in full for
// each thread before any thread passes the barrier: the semantics of a CUDA block. Shared memory
// (a `static` local here) is poisoned with NaN before each block. Outputs are poisoned too and
// compared bit for bit with a host transpose; AddressSanitizer catches out-of-bounds global and
// shared accesses. Bank conflicts: every shared access goes through TR_SMEM, which logs the word
// index; the k-th access of each lane of a warp between two barriers is taken as one instruction
// (exact on the unguarded fast path), and its cost is the largest number of distinct words that
// fall in one of the 32 banks (on the first size, and on 197 x 203 for the peeled path). Vector loads and stores must be aligned to their size (a
// misaligned one aborts, as it faults on a GPU). Exit status 0 iff every size is correct.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ucontext.h>
#include <vector>

// ---- just enough CUDA for the template ----
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct emu_dim3 { unsigned x, y, z; };
static emu_dim3 threadIdx, blockIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline void __stcs(T *p, T v) { *p = v; }
template <class T> static inline T __ldcs(const T *p) { return *p; }
// vector accesses must be aligned to their size, as on the GPU
static void emu_align_check(const void *p, size_t bytes) {
  if ((uintptr_t)p % bytes) {
    fprintf(stderr, "a %zu-byte vector access at an address that is not %zu-byte aligned\n", bytes, bytes);
    abort();
  }
}
#define TR_ALIGN_CHECK(p, bytes) emu_align_check(p, bytes)
// which block writes each 32-byte sector and 128-byte line of out (from the buffer's start, as
// cudaMalloc's are 256-byte aligned): a sector written in part by two blocks is a partial write
static void emu_store(const float *p, int floats);
#define TR_STORE_HOOK(p, floats) emu_store(p, floats)
static void __syncthreads(void);
static float &emu_smem(float *tile, long i, long size);
#define TR_SMEM(i) emu_smem(tile, (i), (long)(sizeof tile / sizeof tile[0]))

#include "../templates/transpose.cu"

// ---- the block scheduler ----
static const int kMaxThreads = 1024;
static const size_t kStack = 256 * 1024;
static ucontext_t sched_ctx, thr_ctx[kMaxThreads];
static char *stacks;
static int cur, nthreads;
static bool done[kMaxThreads], at_barrier[kMaxThreads];
static float *g_out;
static const float *g_in;
static int g_N, g_M;

// per sector (8 floats) and line (32 floats) of out: the block that wrote it first (-1: none),
// and how many writes came from another block, in sectors / lines that hold no boundary between
// two rows of out (such a sector is shared by the last block of one row and the first of the
// next whatever the tiling)
static std::vector<long> sector_by, line_by;
static long shared_sectors, shared_lines;
static long block_id;
static bool inside_row(size_t first, size_t floats) { return first / g_N == (first + floats - 1) / g_N; }
static void emu_store(const float *p, int floats) {
  for (int k = 0; k < floats; k++) {
    const size_t i = (size_t)(p + k - g_out);
    long &s = sector_by[i / 8], &l = line_by[i / 32];
    if (s < 0) s = block_id;
    else if (s != block_id && inside_row(i / 8 * 8, 8)) shared_sectors++;
    if (l < 0) l = block_id;
    else if (l != block_id && inside_row(i / 32 * 32, 32)) shared_lines++;
  }
}

// shared-access log of the current block: per thread, (barrier phase, word) in program order
struct acc { int phase; long word; };
static std::vector<acc> acc_log[kMaxThreads];
static int phase_of[kMaxThreads];
static float *tile_ptr;
static long tile_size;
static bool smem_oob;

static float &emu_smem(float *tile, long i, long size) {
  tile_ptr = tile;
  tile_size = size;
  if (i < 0 || i >= size) {
    smem_oob = true;
    static float sink;
    return sink;
  }
  acc_log[cur].push_back({phase_of[cur], i});
  return tile[i];
}

static void __syncthreads(void) {
  at_barrier[cur] = true;
  phase_of[cur]++;
  swapcontext(&thr_ctx[cur], &sched_ctx);
}

static int g_order;  // the kernel's argument ORDER where -DORDER does not fix it (main: each of 0..3)
static void thread_entry(void) {
#ifdef ORDER
  transpose(g_out, g_in, g_N, g_M);
#else
  transpose(g_out, g_in, g_N, g_M, g_order);
#endif
  done[cur] = true;
}

// bank-conflict totals of the size being counted: [phase] -> instructions, wavefronts
static long instr_[2][2], waves_[2][2];
static long (*instr)[2] = &instr_[0], (*waves)[2] = &waves_[0];

static void count_conflicts(void) {
  for (int w = 0; w * 32 < nthreads; w++) {
    int lanes = nthreads - w * 32 < 32 ? nthreads - w * 32 : 32;
    for (int ph = 0; ph < 2; ph++) {
      std::vector<std::vector<long>> seq(lanes);
      for (int l = 0; l < lanes; l++)
        for (const acc &a : acc_log[w * 32 + l])
          if (a.phase == ph) seq[l].push_back(a.word);
      size_t n = seq[0].size();
      for (int l = 1; l < lanes; l++)
        if (seq[l].size() != n) return;  // divergent (guarded) block: not counted
      for (size_t s = 0; s < n; s++) {
        std::vector<long> bank[32];
        for (int l = 0; l < lanes; l++) {
          long word = seq[l][s];
          std::vector<long> &b = bank[word % 32];
          bool seen = false;
          for (long x : b) seen |= x == word;
          if (!seen) b.push_back(word);
        }
        size_t worst = 0;
        for (auto &b : bank) worst = b.size() > worst ? b.size() : worst;
        (*instr)[ph]++;
        (*waves)[ph] += (long)worst;
      }
    }
  }
}

static int run_block(void) {
  for (int t = 0; t < nthreads; t++) {
    done[t] = at_barrier[t] = false;
    phase_of[t] = 0;
    acc_log[t].clear();
    getcontext(&thr_ctx[t]);
    thr_ctx[t].uc_stack.ss_sp = stacks + (size_t)t * kStack;
    thr_ctx[t].uc_stack.ss_size = kStack;
    thr_ctx[t].uc_link = &sched_ctx;
    makecontext(&thr_ctx[t], thread_entry, 0);
  }
  if (tile_ptr)
    for (long i = 0; i < tile_size; i++) tile_ptr[i] = NAN;
  for (;;) {
    int ndone = 0, nbar = 0;
    for (int t = 0; t < nthreads; t++) {
      if (done[t]) continue;
      at_barrier[t] = false;
      cur = t;
      threadIdx = {(unsigned)(t % blockDim.x), (unsigned)(t / blockDim.x % blockDim.y), 0};
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

static unsigned cdiv(unsigned a, unsigned b) { return (a + b - 1) / b; }

// Geometry exactly as lua/transpose_space.lua computes it.
static void geometry(int N, int M) {
#if TILE == 0
  blockDim = {32, BLOCK_ROWS, 1};
  gridDim = {cdiv(M, 32), cdiv(N, BLOCK_ROWS), 1};
#else
  blockDim = {TILE / VEC, BLOCK_ROWS, 1};
#if ALIGN
  const unsigned gy = N % ALIGN ? cdiv(N + ALIGN - 1, TILE) : cdiv(N, TILE);  // ALIGN: shifted rows of out
#else
  const unsigned gy = cdiv(N, TILE);
#endif
  gridDim = {cdiv(M, TILE), cdiv(gy, TPB), 1};
#endif
  nthreads = blockDim.x * blockDim.y;
}

static int check(int N, int M, int conflicts) {
  instr = &instr_[conflicts > 1], waves = &waves_[conflicts > 1];
  size_t n = (size_t)N * M;
  std::vector<float> in(n), out(n), ref(n);
  uint32_t s = 12345u + (uint32_t)N * 7u + (uint32_t)M;
  for (size_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    in[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
  }
  for (size_t i = 0; i < n; i++) {
    uint32_t poison = 0x7fbadbadu;
    memcpy(&out[i], &poison, 4);
  }
  for (int y = 0; y < N; y++)
    for (int x = 0; x < M; x++) ref[(size_t)x * N + y] = in[(size_t)y * M + x];
  g_in = in.data();
  g_out = out.data();
  g_N = N;
  g_M = M;
  geometry(N, M);
  smem_oob = false;
  sector_by.assign(n / 8 + 1, -1), line_by.assign(n / 32 + 1, -1);
  for (unsigned by = 0; by < gridDim.y; by++)
    for (unsigned bx = 0; bx < gridDim.x; bx++) {
      blockIdx = {bx, by, 0};
      block_id = (long)by * gridDim.x + bx;
      if (run_block() != 0) return -1;
      if (conflicts) count_conflicts();
    }
  if (smem_oob) {
    fprintf(stderr, "N=%d M=%d: shared-memory index out of range\n", N, M);
    return -1;
  }
  if (memcmp(out.data(), ref.data(), n * sizeof(float)) != 0) {
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; i++)
      if (memcmp(&out[i], &ref[i], 4) != 0) {
        bad++;
        if (first == n) first = i;
      }
    fprintf(stderr, "N=%d M=%d: %zu wrong elements, first at out[%zu] (row %zu col %zu)\n", N, M, bad, first,
            first / N, first % N);
    return -1;
  }
  return 0;
}

int main(void) {
  stacks = (char *)malloc((size_t)kMaxThreads * kStack);
  // the first size is all interior tiles for TILE <= 64 and VEC-aligned: bank conflicts counted there
  // then: ragged, unaligned, tiny; interior tiles whose rows are not VEC-aligned on one side, the
  // other or both (the peeled path: M and N odd, M % 4 == 2, N % 4 == 3 ...)
  static const int sizes[][2] = {{128, 192}, {96, 160}, {100, 130}, {37, 71}, {1, 1},   {5, 3},
                                 {64, 1},    {1, 64},   {130, 66},  {66, 130}, {72, 40}, {33, 200},
                                 {197, 203}, {130, 259}, {259, 130}, {195, 129}};
  int bad = 0;
  // ORDER a run-time argument (no -DORDER, as lua/transpose_space.lua compiles it): every size in
  // each of the four orders (bank conflicts and shared sectors counted in the first)
#ifdef ORDER
  const int orders = 1;
#else
  const int orders = 4;
#endif
  long sectors0 = 0, lines0 = 0;  // the first order's counts
  for (int o = 0; o < orders; o++) {
    g_order = o;
    if (o == 1) sectors0 = shared_sectors, lines0 = shared_lines;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      if (check(sizes[i][0], sizes[i][1], o ? 0 : i == 0 ? 1 : i == 12 ? 2 : 0) != 0) {
        bad++;
        if (orders > 1) fprintf(stderr, "  (with the argument ORDER=%d)\n", o);
      }
  }
  if (orders > 1) shared_sectors = sectors0, shared_lines = lines0;
  printf("TILE=%d PAD=%d SWIZZLE=%d BLOCK_ROWS=%d VEC=%d ALIGN=%d: %s", TILE, PAD, SWIZZLE, BLOCK_ROWS, VEC, ALIGN,
         bad ? "WRONG" : "correct");
  // over all sizes: writes to a sector (line) of out that another block writes too, row
  // boundaries aside (ALIGN=8: no sector, ALIGN=32: no line)
  printf("  out writes to a sector another block writes: %ld, to a line: %ld;", shared_sectors, shared_lines);
  if (instr_[0][0] && instr_[0][1])
    printf("  smem wavefronts/instr: store %.2f load %.2f", (double)waves_[0][0] / instr_[0][0],
           (double)waves_[0][1] / instr_[0][1]);
  if ((VEC > 1 || ALIGN) && instr_[1][0] && instr_[1][1])  // 197 x 203: rows of in and out not VEC- (ALIGN-) aligned
    printf(" (%s: store %.2f load %.2f)", ALIGN ? "shifted" : "peeled", (double)waves_[1][0] / instr_[1][0],
           (double)waves_[1][1] / instr_[1][1]);
  printf("\n");
  return bad ? 1 : 0;
}
