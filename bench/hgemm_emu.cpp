// hgemm_emu: runs templates/hgemm.cu on the CPU, one CUDA thread per coroutine, to check the
// template's indexing, fragment layouts, descriptors, pipelines and barriers without a GPU.
//
//   g++ -O1 -std=c++17 -fsanitize=address -Wno-unknown-pragmas -DWG=1 -DBM=128 ... bench/hgemm_emu.cpp -o emu
//   ./emu                  the sizes below (aligned, ragged, odd leading dimensions, K < BK, split-K)
//   ./emu M N K [SPLITK]   one size
//   (bench/hgemm_emu.sh drives it over configurations read from stdin.)
//
// The instructions are emulated from the PTX ISA's definitions, independently of how the template
// computes its addresses:
//   ldmatrix .x4 (.trans)  lanes 8i..8i+7 give the row addresses of matrix i; lane l receives
//                          row l/4, columns 2(l%4), +1 of each matrix (.trans: column l/4, rows
//                          2(l%4), +1);
//   mma.sync m16n8k16      lane l = 4g + t holds A rows g, g+8 at columns 2t.., 2t+8.. (a0..a3),
//                          B rows 2t.., 2t+8.. at column g (b0, b1), C rows g, g+8 at 2t, 2t+1;
//   wgmma m64nNk16         A (K-major) and B (N-major, transposed) read through their descriptors
//                          (start, LBO, SBO, swizzle mode) as the canonical layouts define them,
//                          the swizzle applied to the byte address (bits 4-6 ^= bits 7-9 for
//                          128B, ...); D: thread l of warp w holds, per 8 columns j, rows 16w + l/4
//                          and +8 at columns 8j + 2(l%4), +1.
// A warp (warpgroup) collective runs once its 32 (128) threads have reached it; they must all
// reach the same one. wgmma is asynchronous: its operands are read when it is issued and again when
// the wait that completes it runs (a difference is an error: something overwrote shared memory
// under an in-flight wgmma), and only then are the accumulators written; it must follow a
// wgmma.fence in its group; shared memory it reads must not hold generic-proxy writes (cp.async,
// st.shared) that their writer has not fenced with fence.proxy.async since. cp.async copies are
// queued per thread and land only at the wait that lets them (or, under MM_EMU_SEED=n, at any point
// between issue and wait). mbarriers count arrivals and phases (try_wait.parity as the ISA says: a
// fresh barrier passes parity 1); __syncthreads and named barrier 1 (the consumer warpgroups) need
// every participating thread. A thread that spins (a failed try_wait, a split-K flag not yet
// raised) yields; if no thread can make progress the block is deadlocked (an error). Shared memory
// is poisoned (0xFF: NaN as bfloat16 and half) before each block and sized exactly as
// lua/hgemm_space.lua asks, its base 16 bytes past a 1024-byte boundary (the template aligns it);
// every access is bounds-checked, and AddressSanitizer checks the global ones. Blocks run one at a
// time in index order (the order a GPU starts them in; a split that waits on one that has not run
// deadlocks). C is checked against a float64 product of the same 16-bit inputs (relative
// tolerance 1e-4, K <= 600 here), and every split-K flag must be back at 0. Exit status 0 iff
// every size is correct.
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <ucontext.h>
#include <vector>

// ---- just enough CUDA for the template ----
struct float2 { float x, y; };
static inline float2 make_float2(float x, float y) { return {x, y}; }
struct emu_dim3 { unsigned x, y, z; };
static emu_dim3 threadIdx, blockIdx;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n)
#define __grid_constant__
static void emu_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define __trap() emu_fail("__trap() (a WG=1 kernel built for a target without wgmma)")
typedef unsigned short hg_t;
static void __syncthreads(void);
static void __threadfence(void) {}
static float atomicAdd(float *p, float v);
static int atomicAdd(int *p, int v);
static int atomicExch(int *p, int v);
static unsigned char *hg_emu_smem(void);
static unsigned hg_saddr(const void *p);
static void hg_cp16(unsigned dst, const void *src, int bytes);
static void hg_cp8(unsigned dst, const void *src, int bytes);
static void hg_cp4(unsigned dst, const void *src, int bytes);
static void hg_commit(void);
template <int N> static void hg_wait(void);
static void hg_sts16(unsigned dst, unsigned a, unsigned b, unsigned c, unsigned d);
static hg_t hg_ldg(const hg_t *p) { return *p; }
static void hg_ldsm4(unsigned (&r)[4], unsigned a);
static void hg_ldsm4t(unsigned (&r)[4], unsigned a);
static void hg_mma(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]);
static int hg_flag_load(const int *p);
static void hg_pause(void);
static void hg_fence_proxy(void);
static void hg_mbar_init(unsigned a, unsigned count);
static void hg_mbar_arrive(unsigned a);
static bool hg_mbar_try(unsigned a, unsigned parity);
typedef unsigned short hg_t;
struct hg_tmap_t { const hg_t *base; long long dims[2], stride; int box[2], swizzle, valid; char pad[128 - 48]; };
static void hg_mbar_expect(unsigned a, unsigned bytes);
static void hg_tma2d(unsigned dst, const hg_tmap_t *map, int c0, int c1, unsigned mbar);
static void hg_tma_prefetch(const hg_tmap_t *) {}
static void hg_wgmma_fence(void);
static void hg_wgmma_commit(void);
template <int N> static void hg_wgmma_wait(void);
static inline void hg_fence_reg(float &) {}
template <int N> static void hg_setmaxnreg_inc(void) {}
template <int N> static void hg_setmaxnreg_dec(void) {}
static void hg_wgmma_issue(float *d, int n, unsigned long long da, unsigned long long db);
static void hg_wgmma_n64(float (&d)[32], unsigned long long a, unsigned long long b) { hg_wgmma_issue(d, 64, a, b); }
static void hg_wgmma_n128(float (&d)[64], unsigned long long a, unsigned long long b) { hg_wgmma_issue(d, 128, a, b); }
static void hg_wgmma_n256(float (&d)[128], unsigned long long a, unsigned long long b) { hg_wgmma_issue(d, 256, a, b); }
static void hg_bar_consumers(void);
#define HG_EMU 1

#include "../templates/hgemm.cu"

static float hg_tof(hg_t h) {
#ifdef HG_F16
  const uint32_t s = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;
  float f;
  if (e == 0x1f) {
    uint32_t x = s | 0x7f800000u | (m << 13);
    memcpy(&f, &x, 4);
  } else if (e) {
    uint32_t x = s | ((e + 112) << 23) | (m << 13);
    memcpy(&f, &x, 4);
  } else {
    f = ldexpf((float)m, -24);
    if (s) f = -f;
  }
  return f;
#else
  uint32_t x = (uint32_t)h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
#endif
}
static hg_t hg_from(float f) {  // round to nearest even
#ifdef HG_F16
  // inputs are in [-1, 1]: normal or subnormal halves, no overflow
  const float a = fabsf(f);
  int e;
  frexpf(a, &e);  // a = x * 2^e, x in [0.5, 1)
  const int ex = e - 1 < -14 ? -14 : e - 1;
  const float q = ldexpf(rintf(ldexpf(a, 10 - ex)), ex - 10);
  // encode q
  hg_t h;
  if (q == 0) h = 0;
  else {
    int qe;
    frexpf(q, &qe);
    int be = qe - 1;
    if (be < -14) h = (hg_t)rintf(ldexpf(q, 24));  // subnormal
    else h = (hg_t)(((be + 15) << 10) | ((int)rintf(ldexpf(q, 10 - be)) & 0x3ff));
  }
  return (hg_t)(h | (f < 0 ? 0x8000 : 0));
#else
  uint32_t x;
  memcpy(&x, &f, 4);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (hg_t)(x >> 16);
#endif
}

// ---- the block: threads as coroutines ----
static const int kMaxThreads = 1024;
static const size_t kStack = 128 * 1024;
static ucontext_t sched_ctx, thr_ctx[kMaxThreads];
static char *stacks;
static int nthreads, cur;
enum { T_RUN, T_BAR, T_COLL, T_DONE };
static int state[kMaxThreads], bar_id[kMaxThreads];
static long progress;  // bumped by everything but a spin
static uint64_t rng_state;
static unsigned rnd_below(unsigned n) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return (unsigned)(rng_state >> 11) % n;
}

static void emu_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "block %u thread %d: ", blockIdx.x, cur);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}
static void yield_(void) { swapcontext(&thr_ctx[cur], &sched_ctx); }

// ---- shared memory: bytes, bounds, and which bytes hold unfenced generic-proxy writes ----
static unsigned char *smem_buf, *smem;  // smem: the template's view (16 bytes past a 1024 boundary)
static size_t smem_size;
static std::vector<uint8_t> unfenced;
static std::vector<uint16_t> writer;
static std::vector<std::vector<unsigned>> wrote;  // per thread: bytes written since its last fence
static unsigned char *hg_emu_smem(void) { return smem; }
// shared addresses are offsets from the 1024-aligned buffer start (as on the GPU, the swizzle
// reads address bits): smem itself is at address 16
static const unsigned kSmemAddr0 = 16;
static unsigned hg_saddr(const void *p) { return (unsigned)((const unsigned char *)p - smem) + kSmemAddr0; }
static unsigned char *at(unsigned a, unsigned bytes, const char *what) {
  if (a < kSmemAddr0 || a - kSmemAddr0 + bytes > smem_size)
    emu_fail("%s: shared address %u (+%u bytes) outside the %zu bytes of dynamic shared memory", what, a, bytes,
             smem_size);
  return smem + (a - kSmemAddr0);
}
static void write_generic(unsigned a, const void *src, unsigned bytes, int thread) {
  memcpy(at(a, bytes, "store"), src, bytes);
  for (unsigned i = 0; i < bytes; i++) {
    const size_t o = a - kSmemAddr0 + i;
    unfenced[o] = 1, writer[o] = (uint16_t)thread;
    wrote[thread].push_back((unsigned)o);
  }
  progress++;
}
static void hg_fence_proxy(void) {
  for (unsigned o : wrote[cur])
    if (writer[o] == cur) unfenced[o] = 0;
  wrote[cur].clear();
  progress++;
}
static void hg_sts16(unsigned dst, unsigned a, unsigned b, unsigned c, unsigned d) {
  if (dst % 16) emu_fail("st.shared.v4 at shared address %u: not 16-byte aligned", dst);
  const unsigned v[4] = {a, b, c, d};
  write_generic(dst, v, 16, cur);
}

// ---- cp.async: per thread, queued copies completed by the wait that lets them ----
struct pend { int group; unsigned dst, bytes; unsigned char data[16]; };
static std::vector<std::vector<pend>> queue_of;
static std::vector<int> group_of;
static void land(const pend &p, int thread) { write_generic(p.dst, p.data, p.bytes, thread); }
static void land_some(void) {  // random schedules: each queued copy lands now 1 time in 4
  std::vector<pend> &q = queue_of[cur];
  size_t k = 0;
  for (size_t i = 0; i < q.size(); i++)
    if (rnd_below(4) == 0) land(q[i], cur);
    else q[k++] = q[i];
  q.resize(k);
}
static void stop_maybe(void) {  // random schedules: another thread may run here (not a spin: progress)
  if (!rng_state) return;
  land_some();
  if (rnd_below(2)) {
    progress++;
    yield_();
  }
}
static void cp(unsigned dst, const void *src, int size, int bytes) {
  if (dst % size || (bytes && (uintptr_t)src % size))
    emu_fail("cp.async of %d bytes: shared %u or global %p not %d-byte aligned", size, dst, src, size);
  if (bytes != 0 && bytes != size) emu_fail("cp.async src-size %d of %d: the template gives all or nothing", bytes, size);
  at(dst, (unsigned)size, "cp.async");
  pend p = {group_of[cur], dst, (unsigned)size, {0}};
  if (bytes) memcpy(p.data, src, (size_t)bytes);
  queue_of[cur].push_back(p);
  progress++;
  stop_maybe();
}
static void hg_cp16(unsigned dst, const void *src, int bytes) { cp(dst, src, 16, bytes); }
static void hg_cp8(unsigned dst, const void *src, int bytes) { cp(dst, src, 8, bytes); }
static void hg_cp4(unsigned dst, const void *src, int bytes) { cp(dst, src, 4, bytes); }
static void hg_commit(void) {
  group_of[cur]++;
  progress++;
  stop_maybe();
}
template <int N> static void hg_wait(void) {
  stop_maybe();
  std::vector<pend> &q = queue_of[cur];
  std::vector<pend> keep;
  for (const pend &p : q)
    if (p.group < group_of[cur] - N) land(p, cur);
    else keep.push_back(p);
  q.swap(keep);
  progress++;
}

// ---- barriers ----
static void barrier(int id) {
  if (rng_state) land_some();
  state[cur] = T_BAR, bar_id[cur] = id;
  progress++;
  yield_();
}
static void __syncthreads(void) { barrier(0); }
static void hg_bar_consumers(void) { barrier(1); }

// ---- collectives: warps (32) and warpgroups (128) ----
enum { OP_LDSM, OP_LDSMT, OP_MMA, OP_WG_FENCE, OP_WG_MMA, OP_WG_COMMIT, OP_WG_WAIT };
static const char *const op_names[] = {"ldmatrix", "ldmatrix.trans", "mma.sync", "wgmma.fence", "wgmma.mma_async",
                                       "wgmma.commit_group", "wgmma.wait_group"};
struct lane_args {
  unsigned addr;
  unsigned *r;
  float *c;
  const unsigned *a, *b;
  float *d;
  int n, wait;
  unsigned long long da, db;
};
struct coll { int op, arrived; long gen; lane_args *args[128]; };
static std::vector<coll> colls;  // per warp then per warpgroup
static void run_collective(int op, coll &c, int size);
static void collective(int op, int size, lane_args *la) {
  const int group = size == 32 ? cur / 32 : nthreads / 32 + cur / 128;
  if (size == 128 && (nthreads % 128 || cur / 128 * 128 + 128 > nthreads)) emu_fail("%s outside a whole warpgroup", op_names[op]);
  coll &c = colls[group];
  if (c.arrived == 0) c.op = op;
  else if (c.op != op)
    emu_fail("%s: another thread of the %s is at %s (divergent collectives)", op_names[op], size == 32 ? "warp" : "warpgroup",
             op_names[c.op]);
  c.args[cur % size] = la;
  progress++;
  if (++c.arrived < size) {
    const long gen = c.gen;
    state[cur] = T_COLL;
    while (c.gen == gen) yield_();
    state[cur] = T_RUN;
    return;
  }
  run_collective(op, c, size);
  c.arrived = 0;
  c.gen++;
}

static unsigned short sm16(unsigned a) {
  unsigned short v;
  memcpy(&v, at(a, 2, "read"), 2);
  return v;
}
static void hg_ldsm4(unsigned (&r)[4], unsigned a) {
  lane_args la = {};
  la.addr = a, la.r = r;
  collective(OP_LDSM, 32, &la);
}
static void hg_ldsm4t(unsigned (&r)[4], unsigned a) {
  lane_args la = {};
  la.addr = a, la.r = r;
  collective(OP_LDSMT, 32, &la);
}
static void hg_mma(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  lane_args la = {};
  la.c = c, la.a = a, la.b = b;
  collective(OP_MMA, 32, &la);
}
static void ldsm(coll &c, bool trans) {
  unsigned short m[4][8][8];
  for (int l = 0; l < 32; l++) {
    const unsigned a = c.args[l]->addr;
    if (a % 16) emu_fail("ldmatrix: lane %d's row address %u is not 16-byte aligned", l, a);
    for (int e = 0; e < 8; e++) m[l / 8][l % 8][e] = sm16(a + 2 * e);
  }
  for (int l = 0; l < 32; l++)
    for (int i = 0; i < 4; i++) {
      const int g = l / 4, t = l % 4;
      const unsigned lo = trans ? m[i][2 * t][g] : m[i][g][2 * t], hi = trans ? m[i][2 * t + 1][g] : m[i][g][2 * t + 1];
      c.args[l]->r[i] = lo | hi << 16;
    }
}
static float lo_of(unsigned v) { return hg_tof((hg_t)(v & 0xffff)); }
static float hi_of(unsigned v) { return hg_tof((hg_t)(v >> 16)); }
static void mma(coll &c) {
  float A[16][16], B[16][8], D[16][8];
  for (int l = 0; l < 32; l++) {
    const int g = l / 4, t = l % 4;
    const unsigned *a = c.args[l]->a, *b = c.args[l]->b;
    for (int h = 0; h < 2; h++) {  // a0: (g, 2t), a1: (g+8, 2t), a2: (g, 2t+8), a3: (g+8, 2t+8)
      A[g][2 * t + 8 * h] = lo_of(a[2 * h]), A[g][2 * t + 1 + 8 * h] = hi_of(a[2 * h]);
      A[g + 8][2 * t + 8 * h] = lo_of(a[2 * h + 1]), A[g + 8][2 * t + 1 + 8 * h] = hi_of(a[2 * h + 1]);
      B[2 * t + 8 * h][g] = lo_of(b[h]), B[2 * t + 1 + 8 * h][g] = hi_of(b[h]);
    }
    const float *cc = c.args[l]->c;
    D[g][2 * t] = cc[0], D[g][2 * t + 1] = cc[1], D[g + 8][2 * t] = cc[2], D[g + 8][2 * t + 1] = cc[3];
  }
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 8; j++) {
      double s = D[i][j];
      for (int k = 0; k < 16; k++) s += (double)A[i][k] * B[k][j];
      D[i][j] = (float)s;
    }
  for (int l = 0; l < 32; l++) {
    const int g = l / 4, t = l % 4;
    float *cc = c.args[l]->c;
    cc[0] = D[g][2 * t], cc[1] = D[g][2 * t + 1], cc[2] = D[g + 8][2 * t], cc[3] = D[g + 8][2 * t + 1];
  }
}

// ---- wgmma: per warpgroup, the open batch and the committed groups ----
struct wg_op { unsigned long long da, db; int n; float *d[128]; std::vector<float> a, b; };
struct wg_state { bool fenced; std::vector<wg_op> open; std::vector<std::vector<wg_op>> groups; };
static std::vector<wg_state> wgs;
static unsigned swizzled(unsigned addr, int mode) {
  const unsigned mask = mode == 1 ? 7 : mode == 2 ? 3 : 1;
  return addr ^ (((addr >> 7) & mask) << 4);
}
// the operands of one wgmma: A 64 x 16 (K-major), B 16 x n (N-major), as its descriptors say
static void decode(const wg_op &op, std::vector<float> &a, std::vector<float> &b) {
  const unsigned long long ds[2] = {op.da, op.db};
  unsigned start[2], lbo[2], sbo[2];
  int mode[2];
  for (int i = 0; i < 2; i++) {
    start[i] = (unsigned)(ds[i] & 0x3fff) << 4;
    lbo[i] = (unsigned)((ds[i] >> 16) & 0x3fff) << 4;
    sbo[i] = (unsigned)((ds[i] >> 32) & 0x3fff) << 4;
    mode[i] = (int)(ds[i] >> 62);
    if (mode[i] == 0) emu_fail("wgmma: a descriptor without swizzle (the template uses 32/64/128B)");
    if ((ds[i] >> 49) & 7) emu_fail("wgmma: a descriptor with a matrix base offset");
  }
  const int wa = mode[0] == 1 ? 128 : mode[0] == 2 ? 64 : 32, wb = mode[1] == 1 ? 128 : mode[1] == 2 ? 64 : 32;
  a.resize(64 * 16), b.resize(16 * (size_t)op.n);
  for (int m = 0; m < 64; m++)
    for (int k = 0; k < 16; k++) {  // ((8,m),(T,2)):((W/16 T,SBO),(1,T)) in 16-byte units
      const unsigned addr = start[0] + (m % 8) * wa + (m / 8) * sbo[0] + (k / 8) * 16 + (k % 8) * 2;
      const unsigned p = swizzled(addr, mode[0]);
      for (int x = 0; x < 2; x++)
        if (unfenced[at(p, 2, "wgmma A") - smem + x])
          emu_fail("wgmma reads A at shared %u, written by thread %d through the generic proxy and not fenced since", p,
                   writer[at(p, 2, "wgmma A") - smem]);
      a[(size_t)m * 16 + k] = hg_tof(sm16(p));
    }
  for (int k = 0; k < 16; k++)
    for (int n = 0; n < op.n; n++) {  // ((T,W/16,m),(8,k)):((1,T,LBO),(W/16 T,SBO))
      const unsigned addr = start[1] + (n % (wb / 2)) * 2 + (n / (wb / 2)) * lbo[1] + (k % 8) * wb + (k / 8) * sbo[1];
      const unsigned p = swizzled(addr, mode[1]);
      if (unfenced[at(p, 2, "wgmma B") - smem] || unfenced[at(p, 2, "wgmma B") - smem + 1])
        emu_fail("wgmma reads B at shared %u, written by thread %d through the generic proxy and not fenced since", p,
                 writer[at(p, 2, "wgmma B") - smem]);
      b[(size_t)k * op.n + n] = hg_tof(sm16(p));
    }
}
static wg_state &my_wg(void) { return wgs[cur / 128]; }
static void hg_wgmma_fence(void) {
  lane_args la = {};
  collective(OP_WG_FENCE, 128, &la);
}
static void hg_wgmma_issue(float *d, int n, unsigned long long da, unsigned long long db) {
  lane_args la = {};
  la.d = d, la.n = n, la.da = da, la.db = db;
  collective(OP_WG_MMA, 128, &la);
}
static void hg_wgmma_commit(void) {
  lane_args la = {};
  collective(OP_WG_COMMIT, 128, &la);
}
template <int N> static void hg_wgmma_wait(void) {
  lane_args la = {};
  la.wait = N;
  collective(OP_WG_WAIT, 128, &la);
}
static void wg_execute(wg_op &op) {
  std::vector<float> a, b;
  decode(op, a, b);
  if (a != op.a || b != op.b) emu_fail("shared memory under an in-flight wgmma changed between its issue and its wait");
  for (int t = 0; t < 128; t++) {
    const int w = t / 32, l = t % 32;
    for (int j = 0; j < op.n / 2; j++) {
      const int row = 16 * w + l / 4 + 8 * ((j % 4) / 2), col = 8 * (j / 4) + 2 * (l % 4) + (j % 2);
      double s = op.d[t][j];
      for (int k = 0; k < 16; k++) s += (double)a[(size_t)row * 16 + k] * b[(size_t)k * op.n + col];
      op.d[t][j] = (float)s;
    }
  }
}
static void run_collective(int op, coll &c, int size) {
  (void)size;
  switch (op) {
    case OP_LDSM: ldsm(c, false); break;
    case OP_LDSMT: ldsm(c, true); break;
    case OP_MMA: mma(c); break;
    case OP_WG_FENCE: my_wg().fenced = true; break;
    case OP_WG_MMA: {
      wg_state &w = my_wg();
      if (!w.fenced) emu_fail("wgmma.mma_async without a wgmma.fence before it in its group");
      wg_op o;
      o.da = c.args[0]->da, o.db = c.args[0]->db, o.n = c.args[0]->n;
      for (int t = 0; t < 128; t++) {
        if (c.args[t]->da != o.da || c.args[t]->db != o.db || c.args[t]->n != o.n)
          emu_fail("wgmma.mma_async: the threads of the warpgroup give different descriptors");
        o.d[t] = c.args[t]->d;
      }
      decode(o, o.a, o.b);
      w.open.push_back(o);
      break;
    }
    case OP_WG_COMMIT: {
      wg_state &w = my_wg();
      w.groups.push_back(w.open);
      w.open.clear();
      w.fenced = false;
      break;
    }
    case OP_WG_WAIT: {
      wg_state &w = my_wg();
      const int keep = c.args[0]->wait;
      while ((int)w.groups.size() > keep) {
        for (wg_op &o : w.groups.front()) wg_execute(o);
        w.groups.erase(w.groups.begin());
      }
      break;
    }
  }
}

// ---- mbarriers (by shared address) ----
struct mbar { unsigned count, pending, phase; long tx; };
static std::map<unsigned, mbar> mbars;
static mbar &bar_at(unsigned a, const char *what) {
  if (a % 8) emu_fail("%s: mbarrier at shared %u is not 8-byte aligned", what, a);
  at(a, 8, what);
  auto it = mbars.find(a);
  if (it == mbars.end()) emu_fail("%s: no mbarrier was initialized at shared %u", what, a);
  return it->second;
}
static void hg_mbar_init(unsigned a, unsigned count) {
  if (a % 8) emu_fail("mbarrier.init at shared %u: not 8-byte aligned", a);
  at(a, 8, "mbarrier.init");
  mbars[a] = {count, count, 0, 0};
  progress++;
}
// a phase completes once every arrival is in and its transactions (expect_tx) have all landed
static void phase_maybe(mbar &b) {
  if (b.pending == 0 && b.tx == 0) b.phase++, b.pending = b.count;
}
static void hg_mbar_arrive(unsigned a) {
  mbar &b = bar_at(a, "mbarrier.arrive");
  if (b.pending == 0) emu_fail("mbarrier.arrive at shared %u: more arrivals than its count in one phase", a);
  --b.pending;
  phase_maybe(b);
  progress++;
  stop_maybe();
}
static void hg_mbar_expect(unsigned a, unsigned bytes) {
  mbar &b = bar_at(a, "mbarrier.arrive.expect_tx");
  b.tx += bytes;
  hg_mbar_arrive(a);
}

// ---- TMA: cp.async.bulk.tensor.2d with the tensor map's box and swizzle (PTX ISA, "Tensor
// copy"; CUDA driver API, cuTensorMapEncodeTiled): the box at (c0, c1) is read from global memory
// (elements outside the tensor's dims are zeros) and written to shared memory row by row (box[0]
// elements of 2 bytes each), each byte address a swizzled as the hardware does, from its address
// bits (128B: bits 4-6 ^= bits 7-9; 64B: bits 4-5 ^= 7-8; 32B: bit 4 ^= 7), through the async
// proxy (no fence needed before wgmma reads it). The copy lands at once (MM_EMU_SEED: at a random
// later point, at the latest when a thread waits on its mbarrier); landing, it completes its bytes
// of the mbarrier's transactions. The map here is the emulator's own encoding (check() makes it). ----
struct bulk { unsigned dst, mbar; std::vector<unsigned char> data; };
static std::vector<bulk> bulks;
static void bulk_land(size_t i) {
  bulk b = bulks[i];
  bulks.erase(bulks.begin() + (long)i);
  memcpy(at(b.dst, (unsigned)b.data.size(), "cp.async.bulk.tensor"), b.data.data(), b.data.size());
  mbar &m = bar_at(b.mbar, "cp.async.bulk.tensor's mbarrier");
  m.tx -= (long)b.data.size();
  if (m.tx < 0) emu_fail("mbarrier at shared %u: more bytes landed than expect_tx announced", b.mbar);
  phase_maybe(m);
  progress++;
}
static void hg_tma2d(unsigned dst, const hg_tmap_t *map, int c0, int c1, unsigned mbar) {
  if (!map->valid) emu_fail("cp.async.bulk.tensor through a tensor map that was not encoded (zero bytes)");
  const int sw = map->swizzle, w = map->box[0] * 2, rows = map->box[1];
  if (dst % (sw ? 8u * sw : 16u)) emu_fail("cp.async.bulk.tensor: shared address %u not aligned to the swizzle's %d-byte pattern", dst, sw ? 8 * sw : 16);
  bar_at(mbar, "cp.async.bulk.tensor's mbarrier");
  bulk b = {dst, mbar, std::vector<unsigned char>((size_t)w * rows)};
  for (int r = 0; r < rows; r++)
    for (int e = 0; e < map->box[0]; e++) {
      const long long x = (long long)c0 + e, y = (long long)c1 + r;
      hg_t v = 0;
      if (x >= 0 && y >= 0 && x < map->dims[0] && y < map->dims[1])
        v = *(const hg_t *)((const unsigned char *)map->base + y * map->stride + x * 2);
      unsigned o = (unsigned)(r * w + e * 2);  // byte offset in the box, then the address swizzled
      const unsigned a = dst + o, mask = sw ? (unsigned)sw / 16 - 1 : 0;
      o = (a ^ (((a >> 7) & mask) << 4)) - dst;
      memcpy(&b.data[o], &v, 2);
    }
  // the bytes it writes were never fenced generic writes (the async proxy's own)
  for (unsigned i = 0; i < b.data.size(); i++) unfenced[dst - kSmemAddr0 + i] = 0;
  bulks.push_back(b);
  if (!rng_state || rnd_below(2)) bulk_land(bulks.size() - 1);
  progress++;
  stop_maybe();
}
static bool hg_mbar_try(unsigned a, unsigned parity) {
  for (size_t i = 0; i < bulks.size();)  // a waiter lets the copies it waits for land (in time)
    if (bulks[i].mbar == a && (!rng_state || rnd_below(2))) bulk_land(i);
    else i++;
  mbar &b = bar_at(a, "mbarrier.try_wait");
  if ((b.phase & 1) != (parity & 1)) {
    progress++;
    return true;
  }
  yield_();  // a spin: no progress
  return false;
}

// ---- global memory: atomics and the split-K flags ----
static float atomicAdd(float *p, float v) { float o = *p; *p = o + v; progress++; return o; }
static int atomicAdd(int *p, int v) { int o = *p; *p = o + v; progress++; return o; }
static int atomicExch(int *p, int v) { int o = *p; *p = v; progress++; return o; }
static int hg_flag_load(const int *p) {
  if (*p) progress++;
  return *p;
}
static void hg_pause(void) { yield_(); }

// ---- the scheduler ----
static hg_t *g_A, *g_B;
static float *g_C;
static int *g_flags;
static int g_M, g_N, g_K, g_split;
static hg_tmap_t g_tmA, g_tmB;
static const float kAlpha = 1.0f, kBeta = 0.5f;

static void thread_entry(void) {
  hgemm(g_C, g_A, g_B, g_M, g_N, g_K, kAlpha, kBeta, 3, g_split, g_flags, g_tmA, g_tmB);
  if (!queue_of[cur].empty()) emu_fail("ended with %zu cp.async copies never waited for", queue_of[cur].size());
  state[cur] = T_DONE;
}

static void resume(int t) {
  cur = t;
  threadIdx = {(unsigned)t, 0, 0};
  swapcontext(&sched_ctx, &thr_ctx[t]);
}

// Run every runnable thread (in order, or at random) until the block is done; release a barrier
// once all its threads are there; a round in which nothing happened but spins is a deadlock.
static void run_block(void) {
  for (int t = 0; t < nthreads; t++) {
    state[t] = T_RUN;
    queue_of[t].clear();
    group_of[t] = 0;
    wrote[t].clear();
    getcontext(&thr_ctx[t]);
    thr_ctx[t].uc_stack.ss_sp = stacks + (size_t)t * kStack;
    thr_ctx[t].uc_stack.ss_size = kStack;
    thr_ctx[t].uc_link = &sched_ctx;
    makecontext(&thr_ctx[t], thread_entry, 0);
  }
  for (coll &c : colls) c.arrived = 0;
  for (wg_state &w : wgs) w.fenced = false, w.open.clear(), w.groups.clear();
  mbars.clear();
  bulks.clear();
  std::vector<int> order(nthreads);
  for (int round = 0;; round++) {
    const long before = progress;
    for (int i = 0; i < nthreads; i++) order[i] = i;
    if (rng_state)
      for (int i = nthreads - 1; i > 0; i--) std::swap(order[i], order[rnd_below((unsigned)i + 1)]);
    for (int i = 0; i < nthreads; i++)
      if (state[order[i]] == T_RUN || state[order[i]] == T_COLL) resume(order[i]);
    int ndone = 0, n0 = 0, n1 = 0, consumers = 0;
    for (int t = 0; t < nthreads; t++) {
      ndone += state[t] == T_DONE;
      n0 += state[t] == T_BAR && bar_id[t] == 0;
      n1 += state[t] == T_BAR && bar_id[t] == 1;
    }
#if WG == 1
    consumers = 128 * HG_CWG;
#endif
    if (ndone == nthreads) break;
    if (n0 && n0 + ndone == nthreads) {
      if (ndone) emu_fail("barrier divergence: %d threads done, %d at __syncthreads", ndone, n0);
      for (int t = 0; t < nthreads; t++) state[t] = T_RUN;
      continue;
    }
    if (n1 && n1 == consumers) {
      for (int t = 0; t < nthreads; t++)
        if (state[t] == T_BAR && bar_id[t] == 1) state[t] = T_RUN;
      continue;
    }
    if (progress == before && round > 0) {
      for (int t = 0, shown = 0; t < nthreads && shown < 4; t++)
        if (state[t] == T_RUN || state[t] == T_COLL) {
          const coll &c = colls[state[t] == T_COLL ? t / 32 : 0];
          fprintf(stderr, "  thread %d: %s\n", t, state[t] == T_RUN ? "spinning" : op_names[c.op]);
          shown++;
        }
      emu_fail("deadlock: no thread can make progress (%d done, %d at __syncthreads, %d at barrier 1)", ndone, n0, n1);
    }
  }
  for (wg_state &w : wgs)
    if (!w.open.empty() || !w.groups.empty()) emu_fail("the block ended with wgmma never waited for");
  if (!bulks.empty()) emu_fail("the block ended with %zu tensor copies that never landed", bulks.size());
}

static int check(int M, int N, int K, int split) {
  std::vector<hg_t> A((size_t)M * K), B((size_t)K * N);
  std::vector<float> C((size_t)M * N), C0;
  uint32_t s = 12345u + (uint32_t)M * 7u + (uint32_t)N * 13u + (uint32_t)K;
  auto rnd = [&]() { s = s * 1664525u + 1013904223u; return (float)(s >> 8) / 8388608.0f - 1.0f; };
  for (hg_t &x : A) x = hg_from(rnd());
  for (hg_t &x : B) x = hg_from(rnd());
  for (float &x : C) x = rnd();
  C0 = C;
  const int gm = (M + BM - 1) / BM, gn = (N + BN - 1) / BN;
  std::vector<int> flags((size_t)gm * gn, 0);
  g_A = A.data(), g_B = B.data(), g_C = C.data(), g_flags = flags.data();
  g_M = M, g_N = N, g_K = K, g_split = split;
  // the tensor maps lua/hgemm.lua declares (A as {K, M}, boxes {SWZ/2, BM}; B as {N, K}, boxes
  // {SWZ/2, BK}), encoded where the driver would: rows of 16-byte multiples (else zero bytes)
  const int bw = SWZ ? SWZ / 2 : 8;
  memset(&g_tmA, 0, sizeof g_tmA), memset(&g_tmB, 0, sizeof g_tmB);
  if (K % 8 == 0) g_tmA = {A.data(), {K, M}, 2LL * K, {bw, BM}, SWZ, 1, {0}};
  if (N % 8 == 0) g_tmB = {B.data(), {N, K}, 2LL * N, {bw, BK}, SWZ, 1, {0}};
  smem_size = HG_SMEM;  // as lua/hgemm_space.lua's shared function gives it
  for (int b = 0; b < gm * gn * split; b++) {
    blockIdx = {(unsigned)b, 0, 0};
    smem_buf = static_cast<unsigned char *>(aligned_alloc(1024, (smem_size + 16 + 1023) / 1024 * 1024));
    smem = smem_buf + kSmemAddr0;
    memset(smem, 0xff, smem_size);
    unfenced.assign(smem_size, 0);
    writer.assign(smem_size, 0);
    run_block();
    free(smem_buf);
  }
  size_t bad = 0;
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double r = 0;
      for (int k = 0; k < K; k++) r += (double)hg_tof(A[(size_t)m * K + k]) * hg_tof(B[(size_t)k * N + n]);
      r = kAlpha * r + kBeta * (double)C0[(size_t)m * N + n];
      const double c = C[(size_t)m * N + n], e = fabs(c - r) / (fabs(r) > 1 ? fabs(r) : 1);
      if (!(e <= 1e-4)) {
        if (bad < 3) fprintf(stderr, "M=%d N=%d K=%d split %d: C[%d][%d] = %g, expected %g\n", M, N, K, split, m, n, c, r);
        bad++;
      }
    }
  size_t raised = 0;
  for (int f : flags) raised += f != 0;
  if (raised) fprintf(stderr, "M=%d N=%d K=%d split %d: %zu split-K flags left raised\n", M, N, K, split, raised);
  if (bad) fprintf(stderr, "M=%d N=%d K=%d split %d: %zu of %zu elements wrong\n", M, N, K, split, bad, (size_t)M * N);
  return bad || raised ? -1 : 0;
}

int main(int argc, char **argv) {
  nthreads = HG_THREADS;
  stacks = static_cast<char *>(malloc(kStack * nthreads));
  queue_of.resize(nthreads), group_of.resize(nthreads), wrote.resize(nthreads);
  colls.resize(nthreads / 32 + nthreads / 128 + 1);
  wgs.resize(nthreads / 128 + 1);
  const char *seed = getenv("MM_EMU_SEED");
  rng_state = seed ? strtoull(seed, NULL, 10) * 0x9E3779B97F4A7C15ull : 0;
  if (!rng_state) seed = NULL;
  // aligned, two k tiles per stage ring; ragged M and N with N % 8 = 4 (8-byte pieces of B);
  // K % 8 = 2 and N % 8 = 6 (4-byte pieces); odd N and K (element loads, scalar epilogue);
  // K < BK; split-K over 3 (one split empty at K = 2*BK... and uneven ones)
  static const int sizes[][4] = {{BM, BN, 6 * BK, 1},      {2 * BM + 8, BN + 4, 2 * BK + 16, 1},
                                 {BM - 6, BN + 14, BK + 2, 1}, {BM + 5, BN + 3, 2 * BK + 1, 1},
                                 {70, 77, 9, 1},           {BM, 2 * BN, 4 * BK, 3},
                                 {BM + 1, BN, 2 * BK, 3},  {BM + 5, BN + 8, 2 * BK + 8, 1},
                                 {BM - 3, 2 * BN, 3 * BK + 24, 2}};
  int bad = 0;
  if (argc >= 4) {
    bad = check(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 1) != 0;
  } else {
    const int n = argc > 1 ? atoi(argv[1]) : (int)(sizeof sizes / sizeof sizes[0]);
    for (int i = 0; i < n; i++)
      if (check(sizes[i][0], sizes[i][1], sizes[i][2], sizes[i][3]) != 0) bad = 1;
  }
  printf("%s: WG=%d BM=%d BN=%d BK=%d WM=%d WN=%d STAGES=%d SWZ=%d WS=%d WAITG=%d REGS=%d TMA=%d%s%s%s\n",
         bad ? "WRONG" : "correct", WG, BM, BN, BK, WM, WN, STAGES, SWZ, WS, WAITG, REGS, TMA,
#ifdef HG_F16
         " f16",
#else
         "",
#endif
         seed ? " seed=" : "", seed ? seed : "");
  free(stacks);
  return bad;
}
