// matmul: strict-FP32 SIMT GEMM, C = alpha * A * B + beta * C, one template for every variant.
//
//   A is M x K, B is K x N, C is M x N, all row-major (leading dimensions K, N, N).
//   No tensor cores, no TF32: every product is an FFMA on float32 operands.
//
// Parameters (each reaches the kernel as -DNAME=value, GROUPM as an argument too; the defaults let
// `nvcc -c` build it):
//   BM, BN, BK  block tile: a block computes a BM x BN tile of C, walking K in steps of BK.
//   WM, WN      warp tile: each warp computes a WM x WN piece of the block tile; the block has
//               (BM/WM) * (BN/WN) warps.
//   TM, TN      thread tile (multiples of 4): each thread computes TM x TN elements of C. The
//               32 lanes of a warp form an LM x LN grid, LM = WM/TM, LN = WN/TN (LM * LN = 32).
//               A thread's rows are TM/4 runs of 4 consecutive rows, LM*4 apart; its columns TN/4
//               runs of 4, LN*4 apart, so every shared-memory read of a fragment is one float4
//               and the lanes of a warp read consecutive float4s (no bank conflicts).
//   STAGES      1: plain loads: global -> registers -> shared memory, one shared buffer, the next
//               tile's global loads in flight while the current one is computed.
//               2..4: a cp.async pipeline of STAGES shared buffers (STAGES-1 tiles in flight).
//   SDB         STAGES=1 only: 1 = two shared buffers (the registers of tile k+1 are stored into the
//               other buffer while tile k is computed: one __syncthreads per tile instead of two).
//   PAD         floats of padding per row of the transposed A tile (0 or 4: 4 keeps float4
//               alignment and spreads the transposing stores over the banks).
//   REGDB       1: double-buffered register fragments (the fragments of step k+1 are read from
//               shared memory while step k's FFMAs run); 0: one fragment set; 2: double-buffered
//               across tiles as well: one barrier per tile, before its last k step, whose FFMAs
//               then hide the barrier and the loads of the next tile's first fragments (needs a
//               second shared buffer: SDB=1 or STAGES >= 2).
//   UNROLL      the inner loop over BK: 0 fully unrolled, else `#pragma unroll UNROLL` (REGDB=1
//               needs full unroll, so that the fragment index is a compile-time constant).
//   HOIST       1: the load geometry (base pointers, row and column masks) is computed once per
//               thread and each tile's loads are a pointer plus a constant offset, with k checked
//               only in a partial last tile; 0: every load recomputes its indices and bounds (the
//               first version: ~200 integer instructions per tile of the cp.async path).
//   GROUPM      block order: blocks walk the tiles of C in bands of GROUPM block rows (1: plain
//               row-major order), so the blocks resident at one time share rows of A and
//               columns of B in L2. A runtime parameter of lua/matmul_space.lua: the kernel's
//               last argument `groupm` (read once per block), so configurations that differ
//               only in it share one compile. With -DGROUPM=v (Kernel Tuner, bench/ harnesses)
//               the value is a compile-time constant and the argument is ignored.
//   SPLITK      split-K inside a tile: 1 none; S = 2..8: each tile of C is computed by S blocks,
//               block s taking the s-th of S nearly equal runs of the tile's k tiles (none when
//               there are fewer k tiles than S), and the S blocks of a tile are one thread block
//               cluster (__cluster_dims__(S, 1, 1), sm_90 and later: blocks s = blockIdx.x % S of
//               cluster blockIdx.x / S). Each stores its partial tile in its shared memory; after
//               a cluster barrier block s adds the S partials of the s-th share of the tile
//               through distributed shared memory, always in the order 0..S-1 (the same bits in
//               every run), and writes that share of C. No workspace, no spin-wait. Built for an
//               architecture without clusters (before sm_90) the kernel takes the same grid, and
//               block 0 of each cluster does all of its K while the others return at once.
//   STREAMK     0: one tile of C per cluster (grid: tiles * SPLITK blocks). k > 0: stream-K, a
//               persistent grid of about k blocks per SM (the grid is the launcher's: see
//               Launch): the tiles' k tiles, tile after tile, are cut into one contiguous run per
//               cluster, so every SM gets the same work whatever the tile count (no last wave
//               mostly idle: 4097^3 has 4.25 waves of 128x256 tiles; 256x256x16384 has 2 tiles of
//               512 k tiles each). A tile that a cluster covers whole is written as above; a tile
//               cut between clusters is finished by the last of its clusters to get there: each
//               writes its partial tile to the workspace `ws` (its slot: two per cluster), then
//               counts itself in the tile's counter (one per tile and share, at the head of ws);
//               the block that brings the count to the number of the tile's clusters adds the
//               partials in cluster order (the same bits in every run, whatever the order of
//               arrival), resets the counter to 0 for the next launch, and writes C. One launch,
//               no spin-wait (so no block waits for one that is not running). `ws` holds at
//               least MM_WS_FLOATS(grid) floats (below) whose counters are zero before the first
//               launch; with fewer (ws_floats smaller), the clusters take whole tiles in turn
//               instead (correct, balanced only per tile).
//
// Shared memory (dynamic, STAGES buffers, or one when STAGES=1), per buffer:
//   As[BK][BM+PAD]  A transposed (k-major), so a thread's TM rows at one k are float4s;
//   Bs[BK][BN]      B as in memory.
//   Bytes: NBUF * BK * (BM + PAD + BN) * 4, NBUF = STAGES (2 when STAGES=1 and SDB=1, else 1);
//   with SPLITK > 1 or STREAMK > 0 at least BM * BN * 4 (the partial tile, the stream-K sum);
//   lua/matmul_space.lua computes the same.
//
// Workspace (STREAMK > 0; the arguments ws, ws_floats; unused otherwise, may be NULL and 0):
//   MM_WS_FLOATS(grid) = MM_WS_COUNTERS + 2 * (grid / SPLITK) * BM * BN floats: 4096 counters
//   (unsigned, 16 KiB, the same head for every grid and configuration) that must be 0 before the
//   first launch and are 0 again after each complete launch, then two partial tiles per cluster.
//   Any configuration at any grid may use the same workspace after another; launches that share
//   one must not run at the same time (kernels/matmul_launch.cu orders them).
//
// Global loads: B always moves in 16-byte pieces (float4 / 16-byte cp.async) when N % 4 == 0;
// A moves as float4 along k (STAGES=1) when K % 4 == 0, and element by element into the
// transposed tile with 4-byte cp.async (STAGES >= 2) -- a warp's A loads still cover whole 32-byte
// sectors because consecutive lanes take consecutive k. Ragged sizes and unaligned leading
// dimensions (N % 4 != 0, K % 4 != 0) take a guarded scalar path; elements outside A or B are
// filled with zeros in shared memory (cp.async src-size 0), so the edge tiles need no guards in
// the inner loop. Buffers are assumed 16-byte aligned (cudaMalloc/cuMemAlloc give 256).
//
// Operands whose rows are not 16-byte aligned (K % 4 != 0 for A, N % 4 != 0 for B) and the
// N % 4 != 0 epilogue of 128-accumulator tiles run in loops that are not fully unrolled: rare
// paths, kept small so that NVRTC spends its time on the main loop. On the cp.async path they keep
// the pipeline (A always moves 4 bytes at a time; B with N % 4 != 0 in 4-byte copies of a pointer
// stepped row by row), and the N % 4 != 0 epilogues issue a batch of loads of C before its
// stores, so a ragged size pays DRAM's latency per batch, not per element. The plain-load path
// (STAGES=1) still copies an unaligned operand straight from global to shared memory when the
// tile is stored (its latency not hidden). With -DMM_EMU the file compiles as
// C++ for bench/matmul_emu.cpp (a CPU emulator that checks indexing, barriers and waits).
//
// Launch (as lua/matmul_space.lua computes it):
//   block (BM/WM * BN/WN * 32), dynamic shared memory as above, a plain launch (the cluster shape
//   is the kernel's own); grid: STREAMK=0: ceil(M/BM) * ceil(N/BN) * SPLITK blocks; STREAMK=k:
//   SPLITK * min(k * SMs / SPLITK, k tiles of all tiles) blocks, SMs the GPU's multiprocessors
//   (any grid that is a multiple of SPLITK is correct; this one fills the GPU once).
//
// With -DCUTUNE_REFERENCE=1 the file provides only matmul_ref: one element of C per thread,
// accumulated in float64 in order k = 0..K-1, block {16, 16}, grid (ceil(N/16), ceil(M/16)).

#ifndef CUTUNE_REFERENCE

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef WM
#define WM 32
#endif
#ifndef WN
#define WN 64
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef PAD
#define PAD 4
#endif
#ifndef SDB
#define SDB 0
#endif
#ifndef REGDB
#define REGDB 1
#endif
#ifndef UNROLL
#define UNROLL 0
#endif
#ifndef HOIST
#define HOIST 1
#endif
#ifndef SPLITK
#define SPLITK 1
#endif
#if SPLITK < 1 || SPLITK > 8
#error "SPLITK must be 1..8 (a cluster of at most 8 blocks: the portable cluster size)"
#endif
// Split-K runs a tile's slices as one thread block cluster (sm_90 and later; the emulator has
// them too); an older architecture builds the kernel without it (see SPLITK above).
#if SPLITK > 1 && (defined(MM_EMU) || !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900)
#define MM_CLUSTER 1
#else
#define MM_CLUSTER 0
#endif
#if MM_CLUSTER && !defined(MM_EMU)
#define MM_CLUSTER_DIMS __cluster_dims__(SPLITK, 1, 1)
#else
#define MM_CLUSTER_DIMS
#endif
#ifndef STREAMK
#define STREAMK 0
#endif
#if STREAMK < 0 || STREAMK > 4
#error "STREAMK must be 0..4 (blocks per SM of the persistent grid)"
#endif
// the workspace of a stream-K grid of g blocks, in floats: a head of MM_WS_COUNTERS counters of
// a fixed size, whatever the grid, then the partial tiles. Fixed, because configurations and
// grids of every size share one workspace (the tuner's input, the launcher's buffer per device):
// sized by the grid (the first version), a small grid's partial tiles lay on a larger grid's
// counters, and the larger grid's tiles then never finished (wrong on the H200 wherever a
// cluster of a smaller grid had left a partial tile there). A grid of more blocks than counters
// takes whole tiles.
#define MM_WS_COUNTERS 4096
#define MM_WS_FLOATS(g) ((long long)MM_WS_COUNTERS + 2LL * ((g) / SPLITK) * BM * BN)
// the end of the epilogue of a tile: the next tile of the cluster's run with STREAMK
#if STREAMK
#define MM_TILE_DONE goto mm_tile_done
#else
#define MM_TILE_DONE return
#endif

#define MM_LM (WM / TM)                       // lanes along m in a warp
#define MM_LN (WN / TN)                       // lanes along n
#define MM_WARPS_M (BM / WM)
#define MM_WARPS_N (BN / WN)
#define MM_THREADS (MM_WARPS_M * MM_WARPS_N * 32)
#define MM_NBUF (STAGES > 1 ? STAGES : (SDB ? 2 : 1))
#define MM_AS (BM + PAD)                      // floats per row of the A tile (k-major)
#define MM_ABUF (BK * MM_AS)                  // floats per A buffer
#define MM_BBUF (BK * BN)
#define MM_BUF (MM_ABUF + MM_BBUF)
// rows of the thread tile the N % 4 != 0 epilogue stages per pass (a divisor of TM whose
// MM_THREADS * rows * TN floats fit in the shared memory; 0: none fits, one float4 at a time)
#define MM_SMEM_FLOATS (MM_NBUF * MM_BUF)
#define MM_EFITS(r) (TM % (r) == 0 && MM_THREADS * (r) * TN <= MM_SMEM_FLOATS)
#define MM_EROWS (MM_EFITS(16) ? 16 : MM_EFITS(8) ? 8 : MM_EFITS(4) ? 4 : MM_EFITS(2) ? 2 : MM_EFITS(1) ? 1 : 0)
// elements of C per batch of that epilogue (their loads issued together, then the stores)
#define MM_EB (MM_EROWS * TN < 8 ? MM_EROWS * TN : 8)
// rows of the thread tile per chunk of the float4 epilogue: 4 float4s of C in flight (8 cost
// registers: 128 -> 143 for BM=BN=128 BK=8 TM=TN=8 STAGES=4, one block per SM instead of two)
#define MM_ECH (TM < 16 / TN ? TM : (16 / TN > 0 ? 16 / TN : 1))
// the same for the smaller thread tiles, with 2 float4s of C in flight (4 cost them registers)
#define MM_ECS (TM < 8 / TN ? TM : (8 / TN > 0 ? 8 / TN : 1))
#define MM_EC (TM * TN >= 128 ? MM_ECH : MM_ECS)

#if MM_LM * MM_LN != 32 || WM % TM || WN % TN
#error "WM/TM * WN/TN must be 32 lanes"
#endif
#if BM % WM || BN % WN || TM % 4 || TN % 4 || BN % 4 || BK % 4 || PAD % 4
#error "BM, BN must be multiples of WM, WN; TM, TN, BN, BK, PAD multiples of 4"
#endif
#if STAGES < 1 || STAGES > 4
#error "STAGES must be 1..4"
#endif
#if SDB && STAGES != 1
#error "SDB is for STAGES=1 (the cp.async stages are buffers already)"
#endif
#if REGDB && UNROLL
#error "REGDB=1 or 2 needs the full unroll (UNROLL=0)"
#endif
#if REGDB == 2 && STAGES == 1 && !SDB
#error "REGDB=2 needs a second shared buffer (SDB=1 or STAGES >= 2)"
#endif
#if REGDB < 0 || REGDB > 2
#error "REGDB must be 0, 1 or 2"
#endif

#define MM_PRAGMA_(x) _Pragma(#x)
#define MM_PRAGMA(x) MM_PRAGMA_(x)
#if UNROLL
#define MM_UNROLL_K MM_PRAGMA(unroll UNROLL)
#else
#define MM_UNROLL_K MM_PRAGMA(unroll)
#endif

// Loads per thread and tile: A in units of VA floats (4 with plain loads, 1 with cp.async), B in
// float4s. A guard handles a total that is not a multiple of the thread count.
#define MM_VA (STAGES == 1 ? 4 : 1)
#define MM_ATOTAL (BM * BK / MM_VA)
#define MM_BTOTAL (BK * BN / 4)
#define MM_ALOADS ((MM_ATOTAL + MM_THREADS - 1) / MM_THREADS)
#define MM_BLOADS ((MM_BTOTAL + MM_THREADS - 1) / MM_THREADS)

#ifdef MM_EMU
// bench/matmul_emu.cpp runs this file on the CPU: it provides mm_cp4, mm_cp16, mm_commit, mm_wait
// (queued copies completed at the wait, so a read before the wait sees the poisoned buffer) and
// mm_emu_smem (the dynamic shared memory of the current block).
#else
__device__ __forceinline__ unsigned mm_smem_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
// cp.async of 4 or 16 bytes; src_bytes < size fills the rest with zeros (0: all zeros, no read).
__device__ __forceinline__ void mm_cp4(float *dst, const float *src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(mm_smem_addr(dst)), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void mm_cp16(float *dst, const float *src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(mm_smem_addr(dst)), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void mm_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void mm_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
#if MM_CLUSTER
// The cluster barrier in two halves: arrive (release: this thread's shared-memory writes and
// reads before it are done for the whole cluster) and wait (acquire: every thread of the
// cluster has arrived). Each is executed by every thread, in the same order.
__device__ __forceinline__ void mm_cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void mm_cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }
// the float4 at p's offset in the shared memory of the cluster's block `rank` (distributed
// shared memory)
__device__ __forceinline__ float4 mm_dsmem_ld4(const float *p, int rank) {
  unsigned a;
  float4 v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(a) : "r"(mm_smem_addr(p)), "r"(rank));
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(a) : "memory");
  return v;
}
#endif
#endif

// The kernel's body. BVPATHS=1 (the default): one body, B's alignment (N % 4 == 0) a runtime
// test inside it. BVPATHS=2: the body compiled twice, BV = B's rows 16-byte aligned (the aligned
// instantiation has no ragged-B code at all) or not, one branch at the kernel's entry. Why: the
// ragged B pipeline in the one body cost the 4096^3 winner's aligned path 10 registers and ~2.5 %
// on the H200 (221 registers, FFMA issue 74.1 % against 211 and 76.0 % before it). Two bodies
// take twice NVRTC's time and the kernel's registers are the larger body's (225 for that
// configuration, the aligned body alone 213, its main loop 4,305 instructions against 4,409 in
// one body and 4,412 before the ragged pipeline); which is faster is for the GPU to say
// (bench/templates_session.sh QUICK=1: w1 against w1v and w1o).
#ifndef BVPATHS
#define BVPATHS 1
#endif
template <bool BV>
__device__ __forceinline__ void mm_body(float *C, const float *A, const float *B, int M, int N, int K, float alpha,
                                        float beta, int groupm, float *ws, int ws_floats) {
#ifdef GROUPM
  (void)groupm;
  const int group_m = GROUPM;
#else
  const int group_m = groupm > 0 ? groupm : 1;
#endif
#ifdef MM_EMU
  float4 *mm_smem4 = mm_emu_smem();
#else
  extern __shared__ float4 mm_smem4[];
#endif
  float *smem = reinterpret_cast<float *>(mm_smem4);

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;

  // Block order: bands of group_m block rows, column by column inside a band.
  const int gm = (M + BM - 1) / BM, gn = (N + BN - 1) / BN;
#if SPLITK > 1
  const int cl = blockIdx.x / SPLITK, slice = blockIdx.x % SPLITK;  // slice = the rank in the cluster
#if !MM_CLUSTER
  if (slice) return;  // no clusters before sm_90: slice 0 does all of K, the others nothing
#endif
#else
  const int cl = blockIdx.x, slice = 0;
#endif
  (void)slice;

#if STREAMK
  // ---- stream-K: cluster cl walks the k tiles [it, it_end) of all tiles, tile after tile ----
  const int KTT = K > BK ? (K + BK - 1) / BK : 1;        // k tiles per tile of C (K = 0: one, empty)
  const long long T = (long long)gm * gn * KTT;          // k tiles of all tiles
  // the clusters that get a run: all of them, or T of a grid with more clusters than k tiles (an
  // empty run between a tile's first and last cluster would never count itself in the tile)
  const int ncl = (int)((long long)(gridDim.x / SPLITK) < T ? gridDim.x / SPLITK : T);
  // with too small a workspace: whole tiles cl, cl + ncl, ... (no partial tiles)
  const bool split = gridDim.x <= MM_WS_COUNTERS && (long long)ws_floats >= MM_WS_FLOATS(gridDim.x);
  const long long it_end = cl >= ncl ? 0 : split ? T * (cl + 1) / ncl : T;
  for (long long it = split ? T * cl / ncl : (long long)cl * KTT; it < it_end;) {
    const int b = (int)(it / KTT);                       // the tile
    const int ka = (int)(it - (long long)b * KTT);       // its k tiles [ka, kb) are this cluster's
    const int kb = (int)(it_end - it < KTT - ka ? ka + (it_end - it) : KTT);
    it = split ? it + (kb - ka) : it + (long long)ncl * KTT;
    const bool whole = ka == 0 && kb == KTT;  // this cluster has all of the tile's k tiles
    __syncthreads();  // the previous tile's reads of the shared memory are done: it is the next one's
#else
  (void)ws, (void)ws_floats;
  {
    const int b = cl;
#endif
  {
  const int band = b / (group_m * gn);
  const int first = band * group_m;
  const int rows = (gm - first < group_m) ? gm - first : group_m;
  const int inband = b - band * group_m * gn;
  const int m0 = (first + inband % rows) * BM;
  const int n0 = (inband / rows) * BN;

  // This thread's place in the block tile.
  const int wm0 = (warp / MM_WARPS_N) * WM, wn0 = (warp % MM_WARPS_N) * WN;
  const int ly = lane / MM_LN, lx = lane % MM_LN;
  const int tm0 = wm0 + ly * 4, tn0 = wn0 + lx * 4;  // first row / column; runs LM*4, LN*4 apart

  const bool avec = (K & 3) == 0, bvec = BVPATHS == 2 ? BV : (N & 3) == 0;  // 16-byte pieces allowed
  (void)avec;  // the cp.async path moves A element by element whatever K is
  // This block's k tiles: all of them (of this cluster's run with STREAMK), or with SPLITK its
  // slice's share (the slices of a tile are consecutive blocks of one cluster; a slice may get
  // none when K is short)
#if STREAMK && MM_CLUSTER
  const int kt0 = ka + (int)((long long)(kb - ka) * slice / SPLITK);
  const int KT = ka + (int)((long long)(kb - ka) * (slice + 1) / SPLITK) - kt0;
#elif STREAMK
  const int kt0 = ka, KT = kb - ka;
#elif MM_CLUSTER
  const long long kt_all = (K + BK - 1) / BK;
  const int kt0 = (int)(kt_all * slice / SPLITK);
  const int KT = (int)(kt_all * (slice + 1) / SPLITK) - kt0;
#else
  const int kt0 = 0, KT = (K + BK - 1) / BK;
#endif

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; i++)
#pragma unroll
    for (int j = 0; j < TN; j++) acc[i][j] = 0.f;

#if REGDB == 2
  // Fragments live across tiles: slot s holds the A and B fragments of one k step. The last k step
  // of a tile runs after the barrier that publishes the next tile, together with the loads of the
  // next tile's first fragments, so the barrier and those loads' latency hide behind its FFMAs.
  float af[2][TM], bf[2][TN];
  auto frag = [&](const float *As, const float *Bs, int k, int s) {
#pragma unroll
    for (int i = 0; i < TM / 4; i++)
      *reinterpret_cast<float4 *>(&af[s][4 * i]) = *reinterpret_cast<const float4 *>(As + k * MM_AS + tm0 + i * MM_LM * 4);
#pragma unroll
    for (int j = 0; j < TN / 4; j++)
      *reinterpret_cast<float4 *>(&bf[s][4 * j]) = *reinterpret_cast<const float4 *>(Bs + k * BN + tn0 + j * MM_LN * 4);
  };
  auto fma_step = [&](int s) {
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
      for (int j = 0; j < TN; j++) acc[i][j] = fmaf(af[s][i], bf[s][j], acc[i][j]);
  };
  // k steps 0..BK-2 of a tile whose step 0 is in slot 0 (BK is even, so step BK-1 is in slot 1)
  auto compute_head = [&](const float *As, const float *Bs) {
#pragma unroll
    for (int k = 0; k < BK - 1; k++) {
      frag(As, Bs, k + 1, (k + 1) & 1);
      fma_step(k & 1);
    }
  };
  // The tile's barrier. Its predicate reads every fragment of the last k step (slot 1), so the
  // shared-memory loads of that step have completed in every thread before any thread passes it
  // and starts overwriting their buffer with a later tile; one accumulator per float4 of the
  // A and B fragments (acc[4i][0], acc[0][4j]) does the same for every load of steps 0..BK-2
  // (a data dependence: ptxas reorders LDS across k steps). With a plain __syncthreads() ptxas
  // leaves them in flight across the barrier, and on an H200 BM=32 BN=256 BK=16 WM=32 WN=16
  // TM=TN=4 STAGES=3 gave wrong results in 300 of 300 runs at 4096^3 (none with this barrier;
  // bench/matmul_recheck.sh, docs/MATMUL.md). The result is not used: no value is 1e30.
  auto drain_sync = [&]() {
    bool p = false;
#pragma unroll
    for (int i = 0; i < TM; i++) p |= af[1][i] == 1e30f;
#pragma unroll
    for (int j = 0; j < TN; j++) p |= bf[1][j] == 1e30f;
#pragma unroll
    for (int i = 0; i < TM; i += 4) p |= acc[i][0] == 1e30f;
#pragma unroll
    for (int j = 4; j < TN; j += 4) p |= acc[0][j] == 1e30f;
    (void)__syncthreads_or(p);
  };
#endif

  // One BK slice of the block tile from buffer `buf`: acc += As^T * Bs.
  auto compute = [&](const float *As, const float *Bs) {
#if REGDB == 2
    (void)As, (void)Bs;  // not used: REGDB=2 has its own main loops
#elif REGDB
    float af[2][TM], bf[2][TN];
#pragma unroll
    for (int i = 0; i < TM / 4; i++) *reinterpret_cast<float4 *>(&af[0][4 * i]) = *reinterpret_cast<const float4 *>(As + tm0 + i * MM_LM * 4);
#pragma unroll
    for (int j = 0; j < TN / 4; j++) *reinterpret_cast<float4 *>(&bf[0][4 * j]) = *reinterpret_cast<const float4 *>(Bs + tn0 + j * MM_LN * 4);
#pragma unroll
    for (int k = 0; k < BK; k++) {
      if (k + 1 < BK) {
#pragma unroll
        for (int i = 0; i < TM / 4; i++)
          *reinterpret_cast<float4 *>(&af[(k + 1) & 1][4 * i]) = *reinterpret_cast<const float4 *>(As + (k + 1) * MM_AS + tm0 + i * MM_LM * 4);
#pragma unroll
        for (int j = 0; j < TN / 4; j++)
          *reinterpret_cast<float4 *>(&bf[(k + 1) & 1][4 * j]) = *reinterpret_cast<const float4 *>(Bs + (k + 1) * BN + tn0 + j * MM_LN * 4);
      }
#pragma unroll
      for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = fmaf(af[k & 1][i], bf[k & 1][j], acc[i][j]);
    }
#else
    MM_UNROLL_K
    for (int k = 0; k < BK; k++) {
      float af[TM], bf[TN];
#pragma unroll
      for (int i = 0; i < TM / 4; i++) *reinterpret_cast<float4 *>(&af[4 * i]) = *reinterpret_cast<const float4 *>(As + k * MM_AS + tm0 + i * MM_LM * 4);
#pragma unroll
      for (int j = 0; j < TN / 4; j++) *reinterpret_cast<float4 *>(&bf[4 * j]) = *reinterpret_cast<const float4 *>(Bs + k * BN + tn0 + j * MM_LN * 4);
#pragma unroll
      for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = fmaf(af[i], bf[j], acc[i][j]);
    }
#endif
  };

#if HOIST
  // Per-thread load geometry, computed once. Load slot l of A covers tile row ha_m + l*HA_R at k
  // offset ha_k (the same mapping as the HOIST=0 code: e = tid + l*threads, and the thread count is
  // a multiple of HA_W and HB_W); slot l of B covers tile row hb_k + l*HB_R at column hb_n.
  constexpr int HA_W = BK / MM_VA, HA_R = MM_THREADS / HA_W;  // A loads per tile row; rows between slots
  constexpr int HB_W = BN / 4, HB_R = MM_THREADS / HB_W;
  static_assert(MM_THREADS % HA_W == 0 && MM_THREADS % HB_W == 0, "load mapping");
  static_assert(MM_ALOADS <= 32, "row mask");
  const int ha_k = (tid % HA_W) * MM_VA, ha_m = tid / HA_W;
  const int hb_n = (tid % HB_W) * 4, hb_k = tid / HB_W;
  // slot 0 at tile 0; may point outside A or B for a row or column outside them: never read then
  const float *ha_p = A + (long long)(m0 + ha_m) * K + ha_k;
  const long long ha_step = (long long)HA_R * K;
  const float *hb_p = B + (long long)hb_k * N + n0 + hb_n;
  const long long hb_step = (long long)HB_R * N;
  unsigned ha_mask = 0, hb_cmask = 0;  // bit l: slot l's row is inside A; bit c: column hb_n+c inside B
#pragma unroll
  for (int l = 0; l < MM_ALOADS; l++)
    if (m0 + ha_m + l * HA_R < M) ha_mask |= 1u << l;
#pragma unroll
  for (int c = 0; c < 4; c++)
    if (n0 + hb_n + c < N) hb_cmask |= 1u << c;
#endif

#if STAGES == 1
  // ---- plain loads: the next tile waits in registers while the current one is computed ----
  float4 ra[MM_ALOADS], rb[MM_BLOADS];
  // K % 4 != 0 (A) or N % 4 != 0 (B): rows are not 16-byte aligned, so that operand skips the
  // registers: store_regs copies its tile element by element from global to shared memory in a
  // loop that is not unrolled (the latency is not hidden: a rare path; unrolled into every load
  // slot it was a fifth of the kernel's NVRTC time and ~18 registers).
  auto copy_a = [&](float *As, int kt) {
    const int k0 = (kt0 + kt) * BK;
#pragma unroll 1
    for (int e = tid; e < BM * BK; e += MM_THREADS) {
      const int kk = e % BK, mm = e / BK;  // consecutive threads: consecutive k of one row
      const int gm_ = m0 + mm, gk = k0 + kk;
      float v = 0.f;
      if (gm_ < M && gk < K) v = __ldg(A + (long long)gm_ * K + gk);
      As[kk * MM_AS + mm] = v;
    }
  };
  auto copy_b = [&](float *Bs, int kt) {
    const int k0 = (kt0 + kt) * BK;
#pragma unroll 1
    for (int e = tid; e < BK * BN; e += MM_THREADS) {
      const int nn = e % BN, kk = e / BN;
      const int gn_ = n0 + nn, gk = k0 + kk;
      float v = 0.f;
      if (gk < K && gn_ < N) v = __ldg(B + (long long)gk * N + gn_);
      Bs[kk * BN + nn] = v;
    }
  };
#if HOIST
  auto load_regs = [&](int kt) {
    const int k0 = (kt0 + kt) * BK;
    const bool full = k0 + BK <= K;  // every k of the tile is inside A and B
    const int ka = k0 + ha_k;
    if (avec) {
#pragma unroll
      for (int l = 0; l < MM_ALOADS; l++) {
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if ((MM_ATOTAL % MM_THREADS == 0 || tid + l * MM_THREADS < MM_ATOTAL) && ((ha_mask >> l) & 1u) && (full || ka < K))
          v = __ldg(reinterpret_cast<const float4 *>(ha_p + l * ha_step + k0));
        ra[l] = v;
      }
    }
    if (bvec) {
      const float *pb = hb_p + (long long)k0 * N;
#pragma unroll
      for (int l = 0; l < MM_BLOADS; l++) {
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if ((MM_BTOTAL % MM_THREADS == 0 || tid + l * MM_THREADS < MM_BTOTAL) && (full || k0 + hb_k + l * HB_R < K) &&
            (hb_cmask & 1u))
          v = __ldg(reinterpret_cast<const float4 *>(pb + l * hb_step));
        rb[l] = v;
      }
    }
  };
#else
  auto load_regs = [&](int kt) {
    const int k0 = (kt0 + kt) * BK;
    if (avec) {
#pragma unroll
      for (int l = 0; l < MM_ALOADS; l++) {
        const int e = tid + l * MM_THREADS;
        const int kk = (e % (BK / 4)) * 4, mm = e / (BK / 4);
        const int gm_ = m0 + mm, gk = k0 + kk;
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if ((MM_ATOTAL % MM_THREADS == 0 || e < MM_ATOTAL) && gm_ < M && gk < K)
          v = __ldg(reinterpret_cast<const float4 *>(A + (long long)gm_ * K + gk));
        ra[l] = v;
      }
    }
    if (bvec) {
#pragma unroll
      for (int l = 0; l < MM_BLOADS; l++) {
        const int e = tid + l * MM_THREADS;
        const int nn = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        const int gn_ = n0 + nn, gk = k0 + kk;
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if ((MM_BTOTAL % MM_THREADS == 0 || e < MM_BTOTAL) && gk < K && gn_ < N)
          v = __ldg(reinterpret_cast<const float4 *>(B + (long long)gk * N + gn_));
        rb[l] = v;
      }
    }
  };
#endif
  // tile kt (the one load_regs(kt) read, if it did) into As, Bs
  auto store_regs = [&](float *As, float *Bs, int kt) {
    if (avec) {
#pragma unroll
      for (int l = 0; l < MM_ALOADS; l++) {
        const int e = tid + l * MM_THREADS;
        if (MM_ATOTAL % MM_THREADS == 0 || e < MM_ATOTAL) {
          const int kk = (e % (BK / 4)) * 4, mm = e / (BK / 4);
          As[(kk + 0) * MM_AS + mm] = ra[l].x;
          As[(kk + 1) * MM_AS + mm] = ra[l].y;
          As[(kk + 2) * MM_AS + mm] = ra[l].z;
          As[(kk + 3) * MM_AS + mm] = ra[l].w;
        }
      }
    } else {
      copy_a(As, kt);
    }
    if (bvec) {
#pragma unroll
      for (int l = 0; l < MM_BLOADS; l++) {
        const int e = tid + l * MM_THREADS;
        if (MM_BTOTAL % MM_THREADS == 0 || e < MM_BTOTAL) {
          const int nn = (e % (BN / 4)) * 4, kk = e / (BN / 4);
          *reinterpret_cast<float4 *>(Bs + kk * BN + nn) = rb[l];
        }
      }
    } else {
      copy_b(Bs, kt);
    }
  };
#if SDB && REGDB == 2
  // two buffers, one barrier per tile, the last k step after it (see frag above)
  if (KT > 0) {
    load_regs(0);
    store_regs(smem, smem + MM_ABUF, 0);
    __syncthreads();
    frag(smem, smem + MM_ABUF, 0, 0);
  }
  for (int kt = 0; kt < KT; kt++) {
    float *cur = smem + (kt & 1) * MM_BUF, *nxt = smem + ((kt + 1) & 1) * MM_BUF;
    const bool more = kt + 1 < KT;
    if (more) load_regs(kt + 1);
    compute_head(cur, cur + MM_ABUF);
    if (more) store_regs(nxt, nxt + MM_ABUF, kt + 1);  // nxt was last read before the previous barrier
    drain_sync();
    frag(nxt, nxt + MM_ABUF, 0, 0);  // unconditional (harmless after the last tile): no branch
    fma_step(1);                      // keeps these loads ahead of the FFMAs that hide them
  }
#elif SDB
  // two buffers: store tile kt+1 into the other one while tile kt is computed
  if (KT > 0) {
    load_regs(0);
    store_regs(smem, smem + MM_ABUF, 0);
    __syncthreads();
  }
  for (int kt = 0; kt < KT; kt++) {
    float *cur = smem + (kt & 1) * MM_BUF, *nxt = smem + ((kt + 1) & 1) * MM_BUF;
    if (kt + 1 < KT) load_regs(kt + 1);
    compute(cur, cur + MM_ABUF);
    if (kt + 1 < KT) store_regs(nxt, nxt + MM_ABUF, kt + 1);  // nxt was last read in iteration kt-1
    __syncthreads();
  }
#else
  float *As = smem, *Bs = smem + MM_ABUF;
  if (KT > 0) load_regs(0);
  for (int kt = 0; kt < KT; kt++) {
    __syncthreads();  // everyone is done reading the previous tile
    store_regs(As, Bs, kt);
    __syncthreads();
    if (kt + 1 < KT) load_regs(kt + 1);
    compute(As, Bs);
  }
#endif
#else
  // ---- cp.async pipeline of STAGES buffers ----
  // N % 4 != 0: B's rows are not 16-byte aligned: 4-byte cp.async element by element. Element
  // e = tid + l*threads of the tile is at row e / BN, column e % BN: consecutive lanes take
  // consecutive columns (whole 32-byte sectors), and as threads and BN are powers of 2 a thread
  // has one column (threads >= BN) or BN/threads columns (threads < BN) in rows HB1_R apart.
#if HOIST
  constexpr int HB1_C = BN > MM_THREADS ? BN / MM_THREADS : 1;  // columns per row and thread
  constexpr int HB1_R = MM_THREADS > BN ? MM_THREADS / BN : 1;  // rows between a thread's rows
  // per tile: a pointer and a shared address stepped row by row in a loop unrolled by 4, not
  // into every load slot (a rare path, kept small for NVRTC's time and for registers: 9
  // instructions per copy, 14 not unrolled; its geometry comes from tid per tile, as hoisted
  // across the main loop it cost the 4096^3 winner 10 registers)
  auto copy_b_async = [&](float *Bs, int k0) {
    const int hb1_n = tid % BN, hb1_k = tid / BN;  // hb1_k = 0 when threads <= BN
    const int klim = K - k0;                       // tile rows kk < klim are inside B
    const long long hb1_step = (long long)HB1_R * N;
    const float *p = B + (long long)(k0 + hb1_k) * N + n0 + hb1_n;
    float *d = Bs + hb1_k * BN + hb1_n;
#pragma unroll 4
    for (int kk = hb1_k; kk < BK; kk += HB1_R, p += hb1_step, d += HB1_R * BN) {
      const bool kok = kk < klim;
#pragma unroll
      for (int c = 0; c < HB1_C; c++) {
        const bool ok = kok && n0 + hb1_n + c * MM_THREADS < N;
        mm_cp4(d + c * MM_THREADS, ok ? p + c * MM_THREADS : B, ok ? 4 : 0);
      }
    }
  };
#else
  auto copy_b_async = [&](float *Bs, int k0) {
#pragma unroll 1
    for (int e = tid; e < BK * BN; e += MM_THREADS) {
      const int nn = e % BN, kk = e / BN;
      const int gn_ = n0 + nn, gk = k0 + kk;
      const bool ok = gk < K && gn_ < N;
      mm_cp4(Bs + kk * BN + nn, ok ? B + (long long)gk * N + gn_ : B, ok ? 4 : 0);
    }
  };
#endif
#if HOIST
  auto load_async = [&](int kt, int stage) {
    float *As = smem + stage * MM_BUF, *Bs = As + MM_ABUF;
    const int k0 = (kt0 + kt) * BK;
    const bool full = k0 + BK <= K;
    const bool ka_ok = full || k0 + ha_k < K;
#pragma unroll
    for (int l = 0; l < MM_ALOADS; l++) {
      if (MM_ATOTAL % MM_THREADS == 0 || tid + l * MM_THREADS < MM_ATOTAL) {
        const bool ok = ka_ok && ((ha_mask >> l) & 1u);
        mm_cp4(As + ha_k * MM_AS + ha_m + l * HA_R, ok ? ha_p + l * ha_step + k0 : A, ok ? 4 : 0);
      }
    }
    if (!bvec) {
      copy_b_async(Bs, k0);
      return;
    }
    const float *pb = hb_p + (long long)k0 * N;
#pragma unroll
    for (int l = 0; l < MM_BLOADS; l++) {
      if (MM_BTOTAL % MM_THREADS == 0 || tid + l * MM_THREADS < MM_BTOTAL) {
        const bool ok = (full || k0 + hb_k + l * HB_R < K) && (hb_cmask & 1u);
        mm_cp16(Bs + (hb_k + l * HB_R) * BN + hb_n, ok ? pb + l * hb_step : B, ok ? 16 : 0);
      }
    }
  };
#else
  auto load_async = [&](int kt, int stage) {
    float *As = smem + stage * MM_BUF, *Bs = As + MM_ABUF;
    const int k0 = (kt0 + kt) * BK;
#pragma unroll
    for (int l = 0; l < MM_ALOADS; l++) {
      const int e = tid + l * MM_THREADS;
      if (MM_ATOTAL % MM_THREADS == 0 || e < MM_ATOTAL) {
        const int kk = e % BK, mm = e / BK;  // consecutive lanes: consecutive k of one row
        const int gm_ = m0 + mm, gk = k0 + kk;
        const bool ok = gm_ < M && gk < K;
        mm_cp4(As + kk * MM_AS + mm, ok ? A + (long long)gm_ * K + gk : A, ok ? 4 : 0);
      }
    }
    if (!bvec) {
      copy_b_async(Bs, k0);
      return;
    }
#pragma unroll
    for (int l = 0; l < MM_BLOADS; l++) {
      const int e = tid + l * MM_THREADS;
      if (MM_BTOTAL % MM_THREADS == 0 || e < MM_BTOTAL) {
        const int nn = (e % (BN / 4)) * 4, kk = e / (BN / 4);
        const int gn_ = n0 + nn, gk = k0 + kk;
        const bool ok = gk < K && gn_ < N;
        mm_cp16(Bs + kk * BN + nn, ok ? B + (long long)gk * N + gn_ : B, ok ? 16 : 0);
      }
    }
  };
#endif
#pragma unroll
  for (int s = 0; s < STAGES - 1; s++) {
    if (s < KT) load_async(s, s);
    mm_commit();  // empty groups keep the group count uniform
  }
  int rd = 0, wr = STAGES - 1;  // stage read now, stage written next
#if REGDB == 2
  // one barrier per tile, before its last k step: it publishes tile kt+1 and ends every read of
  // tile kt-1's stage, which the next iteration's cp.async overwrites
  mm_wait<STAGES - 2>();
  __syncthreads();
  if (KT > 0) frag(smem, smem + MM_ABUF, 0, 0);
  for (int kt = 0; kt < KT; kt++) {
    if (kt + STAGES - 1 < KT) load_async(kt + STAGES - 1, wr);
    mm_commit();
    const float *As = smem + rd * MM_BUF;
    compute_head(As, As + MM_ABUF);
    rd = rd + 1 == STAGES ? 0 : rd + 1;
    wr = wr + 1 == STAGES ? 0 : wr + 1;
    mm_wait<STAGES - 2>();  // tile kt+1 has landed (this thread's part)
    drain_sync();
    frag(smem + rd * MM_BUF, smem + rd * MM_BUF + MM_ABUF, 0, 0);  // unconditional, as above
    fma_step(1);
  }
#else
  for (int kt = 0; kt < KT; kt++) {
    mm_wait<STAGES - 2>();  // tile kt has landed (this thread's part)
    __syncthreads();        // ... everyone's; and everyone is done with tile kt-1's stage
    if (kt + STAGES - 1 < KT) load_async(kt + STAGES - 1, wr);
    mm_commit();
    const float *As = smem + rd * MM_BUF;
    compute(As, As + MM_ABUF);
    rd = rd + 1 == STAGES ? 0 : rd + 1;
    wr = wr + 1 == STAGES ? 0 : wr + 1;
  }
#endif
  mm_wait<0>();
#endif

#if STREAMK
  // ---- stream-K: the tile's partials, when clusters share it ----
  // the cluster whose run holds k tile i of all tiles (the runs are [T*c/ncl, T*(c+1)/ncl))
  auto owner = [&](long long i) { return (int)(((i + 1) * ncl - 1) / T); };
  // the partial tile of cluster c at tile b: slot 0 when b is where c's run starts, else 1 (a run
  // starts in one tile and ends in one, so a cluster shares at most two)
  auto slot = [&](int c) {
    const int ftile = (int)(T * c / ncl / KTT);
    return ws + MM_WS_COUNTERS + (2LL * c + (b == ftile ? 0 : 1)) * (BM * BN);
  };
  // After the block stored its partial (every thread its part, then __threadfence): counts it in
  // the counter of the tile (and of this block's share: one per slice) and says whether it was
  // the last of the tile's clusters c0..c1 (the counter is then reset for the next launch: every
  // cluster of the tile has counted, none touches it again in this launch).
  auto last_of = [&](int c0, int c1) {
    __syncthreads();  // every thread's part of the partial is stored
    unsigned *count = reinterpret_cast<unsigned *>(ws) + (long long)c0 * SPLITK + slice;
    bool last = false;
    if (tid == 0) {
      last = atomicAdd(count, 1u) == (unsigned)(c1 - c0);
      if (last) *count = 0u;
    }
    last = __syncthreads_or(last);
    __threadfence();  // the others' partials, published before their counts, are read after it
    return last;
  };
#endif
#if STREAMK && !MM_CLUSTER
  if (!whole) {
    // the partial in the threads' own layout (float4 q of thread tid at q * threads + tid:
    // coalesced both ways), then, in the last cluster, the sum of all of them in cluster order
    const int c0 = owner((long long)b * KTT), c1 = owner((long long)b * KTT + KTT - 1);
    float4 *mine = reinterpret_cast<float4 *>(slot(cl)) + tid;
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
      for (int j = 0; j < TN / 4; j++)
        __stcg(mine + (i * (TN / 4) + j) * MM_THREADS,
               make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]));
    __threadfence();
    if (!last_of(c0, c1)) MM_TILE_DONE;  // another cluster finishes this tile
    // the sum, each thread its own elements, in shared memory (free: last_of's barrier ended the
    // main loop's reads; a split configuration has BM*BN*4 bytes of it), so that the
    // accumulators are not live while the partials stream in
    float4 *sum = reinterpret_cast<float4 *>(smem) + tid;
    for (int c = c0; c <= c1; c++) {
      const float4 *p = reinterpret_cast<const float4 *>(slot(c)) + tid;
#pragma unroll 4
      for (int q = 0; q < TM * TN / 4; q++) {
        float4 v = __ldcg(p + q * MM_THREADS);
        if (c != c0) {
          const float4 o = sum[q * MM_THREADS];
          v.x += o.x, v.y += o.y, v.z += o.z, v.w += o.w;
        }
        sum[q * MM_THREADS] = v;
      }
    }
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
      for (int j = 0; j < TN / 4; j++) {
        const float4 v = sum[(i * (TN / 4) + j) * MM_THREADS];
        acc[i][4 * j] = v.x, acc[i][4 * j + 1] = v.y, acc[i][4 * j + 2] = v.z, acc[i][4 * j + 3] = v.w;
      }
  }
#endif

#if MM_CLUSTER
  // ---- split-K epilogue: the SPLITK blocks of the cluster hold partial sums of one tile ----
  // Each stores its partial tile (BM x BN, row-major) in its own shared memory, which the
  // pipeline no longer needs (the space gives SPLITK > 1 at least BM*BN*4 bytes); after a
  // cluster barrier, block r reduces the r-th share of the tile's float4s, reading the S
  // partials in the order 0, 1, ..., S-1 whichever block it is (so the sums are the same bits
  // in every run), and updates C there. Its sums go back into its own share of its own tile,
  // which no other block reads, so the barrier that lets the cluster exit (its peers have read
  // what they need of this block's tile) waits at the very end.
  {
    __syncthreads();  // the main loop's reads of the stages are done
    float *part = smem;
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
      for (int j = 0; j < TN / 4; j++)
        *reinterpret_cast<float4 *>(part + (tm0 + (i / 4) * MM_LM * 4 + (i % 4)) * BN + tn0 + j * MM_LN * 4) =
            make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
    mm_cluster_arrive();
    mm_cluster_wait();  // every partial tile of the cluster is in place
    constexpr int Q = BM * BN / 4;  // float4s per tile
    const int lo = Q * slice / SPLITK, hi = Q * (slice + 1) / SPLITK;
#pragma unroll 2
    for (int e = lo + tid; e < hi; e += MM_THREADS) {
      float4 v = mm_dsmem_ld4(part + 4 * e, 0);
#pragma unroll
      for (int q = 1; q < SPLITK; q++) {
        const float4 w = mm_dsmem_ld4(part + 4 * e, q);
        v.x += w.x, v.y += w.y, v.z += w.z, v.w += w.w;
      }
      *reinterpret_cast<float4 *>(part + 4 * e) = v;
    }
    mm_cluster_arrive();  // this block's reads of the others' tiles are done
#if STREAMK
    // a tile shared with other clusters: this block's share goes to the workspace (slot layout:
    // the tile's float4s, each block its share), and the last cluster to count itself for this
    // share adds the clusters' shares in cluster order and writes that share of C
    bool finish = true;
    if (!whole) {
      const int c0 = owner((long long)b * KTT), c1 = owner((long long)b * KTT + KTT - 1);
      float4 *mine = reinterpret_cast<float4 *>(slot(cl));
      for (int e = lo + tid; e < hi; e += MM_THREADS) __stcg(mine + e, *reinterpret_cast<const float4 *>(part + 4 * e));
      __threadfence();
      finish = last_of(c0, c1);
      if (finish)
        for (int c = c0; c <= c1; c++) {
          const float4 *p = reinterpret_cast<const float4 *>(slot(c));
#pragma unroll 4
          for (int e = lo + tid; e < hi; e += MM_THREADS) {
            float4 v = __ldcg(p + e);
            float4 *d = reinterpret_cast<float4 *>(part + 4 * e);  // this thread's own e: no barrier
            if (c != c0) v.x += d->x, v.y += d->y, v.z += d->z, v.w += d->w;
            *d = v;
          }
        }
    }
    if (finish) {
#endif
    // C = alpha * sum + beta * C over the share, MM_RB float4s at a time: their loads of C are
    // issued before their stores (a load cannot pass an earlier store to C, which may alias it)
    constexpr int MM_RB = 4;
#pragma unroll 1
    for (int e0 = lo + tid; e0 < hi; e0 += MM_RB * MM_THREADS) {
      float4 c[MM_RB];
#pragma unroll
      for (int u = 0; u < MM_RB; u++) {
        const int e = e0 + u * MM_THREADS;
        const int gm_ = m0 + e / (BN / 4), gn_ = n0 + (e % (BN / 4)) * 4;
        const float *pc = C + (long long)gm_ * N + gn_;
        const bool in = e < hi && gm_ < M;
        c[u] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (bvec) {
          if (in && gn_ < N) c[u] = *reinterpret_cast<const float4 *>(pc);
        } else if (in) {  // N % 4 != 0: rows of C are not float4-aligned
          if (gn_ < N) c[u].x = pc[0];
          if (gn_ + 1 < N) c[u].y = pc[1];
          if (gn_ + 2 < N) c[u].z = pc[2];
          if (gn_ + 3 < N) c[u].w = pc[3];
        }
      }
#pragma unroll
      for (int u = 0; u < MM_RB; u++) {
        const int e = e0 + u * MM_THREADS;
        const int gm_ = m0 + e / (BN / 4), gn_ = n0 + (e % (BN / 4)) * 4;
        float *pc = C + (long long)gm_ * N + gn_;
        if (e >= hi || gm_ >= M || gn_ >= N) continue;
        const float4 v = *reinterpret_cast<const float4 *>(part + 4 * e);
        float4 o;
        o.x = alpha * v.x + beta * c[u].x;
        o.y = alpha * v.y + beta * c[u].y;
        o.z = alpha * v.z + beta * c[u].z;
        o.w = alpha * v.w + beta * c[u].w;
        if (bvec) {
          *reinterpret_cast<float4 *>(pc) = o;
        } else {
          pc[0] = o.x;
          if (gn_ + 1 < N) pc[1] = o.y;
          if (gn_ + 2 < N) pc[2] = o.z;
          if (gn_ + 3 < N) pc[3] = o.w;
        }
      }
    }
#if STREAMK
    }
#endif
    mm_cluster_wait();  // the others are done with this block's tile: it may exit (or reuse it)
    MM_TILE_DONE;
  }
#endif

  // ---- epilogue: C = alpha * acc + beta * C ----
  // N % 4 != 0: for the largest thread tiles (128 accumulators) through shared memory in a loop
  // (below), for the smaller ones unrolled, a row at a time (#else). N % 4 == 0: float4s of C,
  // in chunks of MM_EC rows (4 float4s in flight at 128 accumulators; 2 for the smaller tiles,
  // where 4 cost registers under NVRTC: 127 -> 135-143 for 128x128 tiles of 8x8 threads with
  // cp.async, one block per SM instead of two).
#if TM * TN >= 128
  if (!bvec) {
    // N % 4 != 0: rows of C are not float4-aligned. Element by element, through shared memory
    // (free now): each thread stages MM_EROWS rows of its tile in a private slot and writes them
    // out in a loop that is not unrolled. Unrolled (TM*TN guarded loads and stores) this path was
    // a third of the kernel's code and of ptxas' time; a private slot needs no barrier but the
    // one that ends the main loop's reads. Every configuration has at least 16 bytes of shared
    // memory per thread (4 floats: MM_EROWS = 0 stages one float4 at a time).
    __syncthreads();
    float *mine = smem + tid * (MM_EROWS ? MM_EROWS * TN : 4);
#if MM_EROWS
#pragma unroll
    for (int i0 = 0; i0 < TM; i0 += MM_EROWS) {
#pragma unroll
      for (int r = 0; r < MM_EROWS; r++)
#pragma unroll
        for (int j = 0; j < TN / 4; j++)
          *reinterpret_cast<float4 *>(mine + r * TN + 4 * j) = make_float4(  // alpha*acc: fresh registers,
              alpha * acc[i0 + r][4 * j], alpha * acc[i0 + r][4 * j + 1],      // so acc need not sit in
              alpha * acc[i0 + r][4 * j + 2], alpha * acc[i0 + r][4 * j + 3]);  // aligned quads
      // MM_EB elements at a time, their loads of C before their stores: DRAM's latency is paid
      // TM*TN/MM_EB times, not TM*TN (MM_EB = 8: 16 cost the 4096^3 winner 10 registers)
#pragma unroll 1
      for (int e0 = 0; e0 < MM_EROWS * TN; e0 += MM_EB) {
        float c[MM_EB];
#pragma unroll
        for (int u = 0; u < MM_EB; u++) {
          const int i = i0 + (e0 + u) / TN, j = (e0 + u) % TN;
          const int gm_ = m0 + tm0 + (i / 4) * MM_LM * 4 + (i % 4), gn_ = n0 + tn0 + (j / 4) * MM_LN * 4 + (j % 4);
          c[u] = gm_ < M && gn_ < N ? C[(long long)gm_ * N + gn_] : 0.f;
        }
#pragma unroll
        for (int u = 0; u < MM_EB; u++) {
          const int i = i0 + (e0 + u) / TN, j = (e0 + u) % TN;
          const int gm_ = m0 + tm0 + (i / 4) * MM_LM * 4 + (i % 4), gn_ = n0 + tn0 + (j / 4) * MM_LN * 4 + (j % 4);
          if (gm_ < M && gn_ < N) C[(long long)gm_ * N + gn_] = mine[e0 + u] + beta * c[u];
        }
      }
    }
#else
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
      for (int j = 0; j < TN / 4; j++) {
        *reinterpret_cast<float4 *>(mine) =
            make_float4(alpha * acc[i][4 * j], alpha * acc[i][4 * j + 1], alpha * acc[i][4 * j + 2], alpha * acc[i][4 * j + 3]);
        const int gm_ = m0 + tm0 + (i / 4) * MM_LM * 4 + (i % 4), gn0 = n0 + tn0 + j * MM_LN * 4;
        float c[4];
#pragma unroll
        for (int u = 0; u < 4; u++) c[u] = gm_ < M && gn0 + u < N ? C[(long long)gm_ * N + gn0 + u] : 0.f;
#pragma unroll
        for (int u = 0; u < 4; u++)
          if (gm_ < M && gn0 + u < N) C[(long long)gm_ * N + gn0 + u] = mine[u] + beta * c[u];
      }
#endif
    MM_TILE_DONE;
  }
#else
  if (!bvec) {
    // N % 4 != 0: element by element, a row of the thread tile at a time, its loads of C before
    // its stores (a load cannot pass an earlier store to C, which may alias it): TM waits for
    // DRAM, not TM*TN
#pragma unroll
    for (int i = 0; i < TM; i++) {
      const int gm_ = m0 + tm0 + (i / 4) * MM_LM * 4 + (i % 4);
      float c[TN];
#pragma unroll
      for (int j = 0; j < TN; j++) {
        const int gn_ = n0 + tn0 + (j / 4) * MM_LN * 4 + (j % 4);
        c[j] = gm_ < M && gn_ < N ? C[(long long)gm_ * N + gn_] : 0.f;
      }
#pragma unroll
      for (int j = 0; j < TN; j++) {
        const int gn_ = n0 + tn0 + (j / 4) * MM_LN * 4 + (j % 4);
        if (gm_ < M && gn_ < N) C[(long long)gm_ * N + gn_] = alpha * acc[i][j] + beta * c[j];
      }
    }
    MM_TILE_DONE;
  }
#endif
  // N % 4 == 0: a float4 of C is wholly inside or wholly outside. Rows in chunks of MM_EC: the
  // chunk's loads of C are issued together before its stores (a load cannot move above an
  // earlier store to C, which may alias it), so a thread waits for DRAM TM/MM_EC times, not TM.
#pragma unroll
  for (int i0 = 0; i0 < TM; i0 += MM_EC) {
    float4 c[MM_EC][TN / 4];
#pragma unroll
    for (int r = 0; r < MM_EC; r++) {
      const int gm_ = m0 + tm0 + ((i0 + r) / 4) * MM_LM * 4 + ((i0 + r) % 4);
#pragma unroll
      for (int j = 0; j < TN / 4; j++) {
        const int gn_ = n0 + tn0 + j * MM_LN * 4;
        c[r][j] = make_float4(0.f, 0.f, 0.f, 0.f);
        if (gm_ < M && gn_ < N) c[r][j] = *reinterpret_cast<const float4 *>(C + (long long)gm_ * N + gn_);
      }
    }
#pragma unroll
    for (int r = 0; r < MM_EC; r++) {
      const int i = i0 + r;
      const int gm_ = m0 + tm0 + (i / 4) * MM_LM * 4 + (i % 4);
#pragma unroll
      for (int j = 0; j < TN / 4; j++) {
        const int gn_ = n0 + tn0 + j * MM_LN * 4;
        if (gm_ < M && gn_ < N) {
          float4 v = c[r][j];
          v.x = alpha * acc[i][4 * j + 0] + beta * v.x;
          v.y = alpha * acc[i][4 * j + 1] + beta * v.y;
          v.z = alpha * acc[i][4 * j + 2] + beta * v.z;
          v.w = alpha * acc[i][4 * j + 3] + beta * v.w;
          *reinterpret_cast<float4 *>(C + (long long)gm_ * N + gn_) = v;
        }
      }
    }
  }
  }  // the tile
#if STREAMK
  mm_tile_done:;
#endif
  }  // the cluster's tiles (one without STREAMK)
}

extern "C" __global__ void __launch_bounds__(MM_THREADS) MM_CLUSTER_DIMS
matmul(float *C, const float *A, const float *B, int M, int N, int K, float alpha, float beta, int groupm, float *ws,
       int ws_floats) {
#if BVPATHS == 2
  if ((N & 3) == 0) mm_body<true>(C, A, B, M, N, K, alpha, beta, groupm, ws, ws_floats);
  else mm_body<false>(C, A, B, M, N, K, alpha, beta, groupm, ws, ws_floats);
#else
  mm_body<false>(C, A, B, M, N, K, alpha, beta, groupm, ws, ws_floats);
#endif
}

#else  // CUTUNE_REFERENCE

// The reference: one element of C per thread, the dot product in float64 in order k = 0..K-1,
// so it is more accurate than any float32 variant. Block {16, 16}, grid (ceil(N/16), ceil(M/16)).
extern "C" __global__ void matmul_ref(float *C, const float *A, const float *B, int M, int N, int K, float alpha,
                                      float beta, int groupm, float *ws, int ws_floats) {
  (void)groupm, (void)ws, (void)ws_floats; // the tuned kernel's arguments, all of them
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  double s = 0.0;
  for (int k = 0; k < K; k++) s += (double)A[(long long)m * K + k] * (double)B[(long long)k * N + n];
  const long long i = (long long)m * N + n;
  C[i] = (float)((double)alpha * s + (double)beta * (double)C[i]);
}

#endif  // CUTUNE_REFERENCE
