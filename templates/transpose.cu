// transpose: out-of-place float32 matrix transpose, one template for every variant cutune tunes.
//
//   in  is N rows x M columns, row-major;   out is M rows x N columns:  out[x*N + y] = in[y*M + x]
//
// Parameters (each reaches the kernel as -DNAME=value; the defaults below let `nvcc -c` build it):
//   TILE        0: the naive kernel (no shared memory, one element per thread, block 32 x BLOCK_ROWS);
//               16/32/64: a TILE x TILE tile staged through shared memory.
//   PAD         floats of padding per shared-memory row (0/1/2).
//   SWIZZLE     1: XOR-swizzle the shared tile instead of padding it (used with PAD=0).
//   BLOCK_ROWS  the block is (TILE/VEC) x BLOCK_ROWS threads; each thread moves TILE/BLOCK_ROWS rows.
//   VEC         1/2/4: float, float2 or float4 global accesses (4-, 8- or 16-byte), on both sides.
//   UNROLL      1: the row loops fully unrolled (all loads of a thread in flight at once);
//               0: `#pragma unroll 1` (one load in flight per thread).
//   LDG         1: loads through the read-only path (__ldg, LDG.E.CONSTANT).
//   STCS        1: streaming stores (__stcs, st.global.cs: evict-first in L2).
//   CS          1: streaming loads and stores (__ldcs and __stcs, ld/st.global.cs: evict-first,
//               as each line is read or written once); replaces LDG. Not a parameter of
//               lua/transpose_space.lua (the committed store's records have no CS): measured
//               first by bench/templates_session.sh.
//   ORDER       the order in which blocks walk the tiles (tiled kernels only), read at run time: the
//               kernel's fifth argument `order` (lua/transpose_space.lua's runtime parameter, so
//               the four orders of a configuration are one compile), unless -DORDER=value fixes it
//               at compile time, where the kernel has the four arguments (out, in, N, M) alone:
//               0: row-major (blockIdx as launched); 1: column-major;
//               2, 3: grouped: blocks go down a band of 8 (2) or 32 (3) tile rows before moving
//               right, so the blocks resident at one time cover a squarish region and both the
//               reads and the transposed writes hit long runs of each DRAM page instead of
//               256-byte pieces of thousands of rows (the access-pattern limit of a plain order).
//   TPB         tiles per block (tiled kernels only): the grid shrinks by TPB along y and each
//               block walks TPB tiles of the launch order, fewer block launches and a shorter
//               tail of the last wave.
//   ALIGN       0, 8 or 32 (tiled, VEC=1): when the rows of out are not ALIGN-float aligned
//               (N % ALIGN != 0), every row of out is written in runs that start at a multiple of
//               ALIGN floats of the matrix (8: 32-byte sectors, 32: 128-byte lines), not at the
//               tile's column: the block of tile (bx, by) writes, in out row x, the TILE columns
//               from by*TILE - s(x), s(x) = (x*N) % ALIGN; so no sector (line) of out is written
//               in part by two blocks. Its tile of in is then a slab of TILE + ALIGN rows (the
//               rows of in that any of its out rows needs), read whole: ALIGN/TILE more reads,
//               which hit L2 (the next block reads them too). The tiles along y are
//               ceil((N + ALIGN - 1) / TILE). With N % ALIGN == 0 the tiles are the plain ones.
//
// Launch (as lua/transpose_space.lua computes it):
//   tiled: block (TILE/VEC, BLOCK_ROWS), grid (ceil(M/TILE), ceil(GY/TPB)), GY = ceil(N/TILE), or
//          with ALIGN and N % ALIGN != 0, ceil((N + ALIGN - 1)/TILE)
//   naive: block (32, BLOCK_ROWS),       grid (ceil(M/32),   ceil(N/BLOCK_ROWS))
//
// With -DCUTUNE_REFERENCE=1 (and no parameter defines) the file provides only transpose_ref, the
// obviously-correct reference: one element per thread, block {32, 8}, grid (ceil(M/32), ceil(N/8)).
//
// How a tiled block works (the part that decides the speed):
//   The tile has TILE rows of TILE/VEC vectors. Threads are mapped, in both phases, so that each run
//   of LX = min(TILE,32)/VEC consecutive lanes covers one 128-byte segment (TILE<32: one whole row)
//   of one row, and the next run of LX lanes takes the next row of the same segment. A warp therefore
//   touches 32/LX rows x 128 bytes: every global access is fully coalesced (whole 128-byte lines,
//   16-byte accesses per lane when VEC=4), and -- the point of this mapping -- every shared-memory
//   access of a warp spreads over all 32 banks:
//   * load phase: lane (lx, row j) stores element k of its vector at word
//         (r0+j)*(TILE+PAD) + VEC*lx + k    -> bank  VEC*lx + k + j*PAD  (mod 32, TILE % 32 == 0)
//     VEC*lx takes the 32/VEC multiples of VEC; j*PAD for j < VEC fills the gaps when PAD is odd.
//   * store phase: lane (lx, column j) gathers VEC consecutive output elements, i.e. VEC consecutive
//     *rows* VEC*t .. VEC*t+VEC-1 of tile column c0+j; its k-th read is at word
//         (VEC*t + k)*(TILE+PAD) + c0 + j  -> bank  VEC*lx*PAD + k*PAD + j  (mod 32)
//     With PAD=1 that is VEC*lx + j + k: again 32 distinct banks. With PAD=0 every lane of a column
//     hits the same bank (up to 32-way conflicts: the seed's "no padding" kernel); PAD=2 leaves
//     2-way conflicts. The usual (TILE/VEC) x BLOCK_ROWS mapping with TILE=64, VEC=4 would put 16
//     lanes on one row, where lanes lx and lx+8 share a bank whatever the padding: hence the remap.
//   * SWIZZLE=1 stores element (r, c) at r*TILE + (c ^ (r & 31)) (& 15 for TILE=16): no padding, and
//     for the same lane mapping the XOR spreads both phases over the banks.
//   Shared accesses stay 4-byte scalars: a padded row is not 16-byte aligned, and shared bandwidth
//   (128 B/clock/SM) is far above the ~18 B/clock/SM that DRAM feeds, so only conflicts matter.
//
// Ragged sizes: a block whose tile lies inside the matrix, with M and N both multiples of VEC (so
// every vector address is VEC-aligned: (y*M + x) % VEC == 0 needs M % VEC == 0 as x is a multiple of
// VEC, likewise N on the output side), takes the vector path with no guards. Inside the matrix with
// M or N not a multiple of VEC, each row's vectors start at its first VEC-aligned column and the
// lane of its last vector moves the peeled elements at both ends one by one (the peeled path
// below): every access but VEC per row stays a vector. Edge tiles take the scalar path: the same
// mapping, element by element, each access guarded. The choice is uniform per block, so the
// __syncthreads() inside each branch is safe. Buffers are assumed at least 16-byte aligned
// (cudaMalloc/cuMemAlloc give 256).
//
// Offsets are computed in 64 bits from per-thread base pointers, so N*M may exceed 2^31.

#ifndef CUTUNE_REFERENCE

#ifndef TILE
#define TILE 64
#endif
// ORDER: a compile-time constant where -DORDER is given, else the kernel's argument `order`.
#ifdef ORDER
#define TR_ORDER_PARAM
#define TR_ORDER_OF ORDER
#else
#define TR_ORDER_PARAM , int order
#define TR_ORDER_OF order
#endif
#ifndef TPB
#define TPB 1
#endif
#ifndef PAD
#define PAD 1
#endif
#ifndef SWIZZLE
#define SWIZZLE 0
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef UNROLL
#define UNROLL 1
#endif
#ifndef LDG
#define LDG 1
#endif
#ifndef STCS
#define STCS 0
#endif
#ifndef CS
#define CS 0
#endif
#ifndef ALIGN
#define ALIGN 0
#endif

// String pragmas so UNROLL can switch them.
#define TR_PRAGMA_(x) _Pragma(#x)
#define TR_PRAGMA(x) TR_PRAGMA_(x)
#if UNROLL
#define TR_UNROLL_ROWS TR_PRAGMA(unroll)
#else
#define TR_UNROLL_ROWS TR_PRAGMA(unroll 1)
#endif

__device__ __forceinline__ float tr_load1(const float *p) {
#if CS
  return __ldcs(p);
#elif LDG
  return __ldg(p);
#else
  return *p;
#endif
}

__device__ __forceinline__ void tr_store1(float *p, float v) {
#ifdef TR_STORE_HOOK
  TR_STORE_HOOK(p, 1);
#endif
#if STCS || CS
  __stcs(p, v);
#else
  *p = v;
#endif
}

#if TILE == 0
// ---------------------------------------------------------------------------------------------
// Naive: each thread reads one element of a row (coalesced) and writes it down a column of out
// (stride N floats: every lane of a warp writes a different 32-byte sector). Block 32 x BLOCK_ROWS.
// ---------------------------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(32 * BLOCK_ROWS)
transpose(float *out, const float *in, int N, int M TR_ORDER_PARAM) {
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y = blockIdx.y * BLOCK_ROWS + threadIdx.y;
  (void)(TR_ORDER_OF);  // the naive kernel walks no tiles
  if (x < M && y < N) tr_store1(out + (long long)x * N + y, tr_load1(in + (long long)y * M + x));
}

#else  // tiled

#if TILE != 16 && TILE != 32 && TILE != 64
#error "TILE must be 0, 16, 32 or 64"
#endif
#if VEC != 1 && VEC != 2 && VEC != 4
#error "VEC must be 1, 2 or 4"
#endif
#if TILE % BLOCK_ROWS != 0
#error "BLOCK_ROWS must divide TILE"
#endif
#if SWIZZLE && PAD != 0
#error "SWIZZLE replaces padding: use PAD=0"
#endif
#if ALIGN != 0 && ALIGN != 8 && ALIGN != 32
#error "ALIGN must be 0, 8 or 32"
#endif
#if ALIGN && (VEC != 1 || ALIGN > TILE || (TILE + ALIGN) % BLOCK_ROWS)
#error "ALIGN needs VEC=1, ALIGN <= TILE and BLOCK_ROWS dividing TILE + ALIGN"
#endif

#if VEC == 4
typedef float4 tr_vec;
#elif VEC == 2
typedef float2 tr_vec;
#else
typedef float tr_vec;
#endif

#define TR_TX (TILE / VEC)                          // blockDim.x
#define TR_THREADS (TR_TX * BLOCK_ROWS)
#define TR_LX ((TILE < 32 ? TILE : 32) / VEC)        // lanes per 128-byte segment of a row
#define TR_RPT (TILE / BLOCK_ROWS)                    // rows (load) / columns (store) per thread
#define TR_SROW (TILE + PAD)                          // words per shared row
#define TR_SWZ_MASK ((TILE < 32 ? TILE : 32) - 1)
#define TR_ROWS (TILE + ALIGN)                        // rows of the shared tile (ALIGN: the slab)

// Word index of tile element (row r, column c).
#if SWIZZLE
#define TR_SIDX(r, c) ((r) * TR_SROW + ((c) ^ ((r) & TR_SWZ_MASK)))
#else
#define TR_SIDX(r, c) ((r) * TR_SROW + (c))
#endif
// Shared access hook: the CPU emulator (bench/transpose_emu.cpp) redefines it to log accesses
// (and defines TR_STORE_HOOK(p, floats) to see which block writes each sector of out).
#ifndef TR_SMEM
#define TR_SMEM(i) tile[i]
#endif

__device__ __forceinline__ tr_vec tr_loadv(const float *p) {
#ifdef TR_ALIGN_CHECK
  TR_ALIGN_CHECK(p, sizeof(tr_vec));
#endif
#if CS
  return __ldcs(reinterpret_cast<const tr_vec *>(p));
#elif LDG
  return __ldg(reinterpret_cast<const tr_vec *>(p));
#else
  return *reinterpret_cast<const tr_vec *>(p);
#endif
}

__device__ __forceinline__ void tr_storev(float *p, tr_vec v) {
#ifdef TR_ALIGN_CHECK
  TR_ALIGN_CHECK(p, sizeof(tr_vec));
#endif
#ifdef TR_STORE_HOOK
  TR_STORE_HOOK(p, VEC);
#endif
#if STCS || CS
  __stcs(reinterpret_cast<tr_vec *>(p), v);
#else
  *reinterpret_cast<tr_vec *>(p) = v;
#endif
}

// Element k of a vector; k is a constant once the VEC loops are unrolled (always), so no local memory.
__device__ __forceinline__ float tr_get(const float &v, int k) { (void)k; return v; }
__device__ __forceinline__ float tr_get(const float2 &v, int k) { return k == 0 ? v.x : v.y; }
__device__ __forceinline__ float tr_get(const float4 &v, int k) {
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}
__device__ __forceinline__ void tr_set(float &v, int k, float f) { (void)k; v = f; }
__device__ __forceinline__ void tr_set(float2 &v, int k, float f) { if (k == 0) v.x = f; else v.y = f; }
__device__ __forceinline__ void tr_set(float4 &v, int k, float f) {
  if (k == 0) v.x = f; else if (k == 1) v.y = f; else if (k == 2) v.z = f; else v.w = f;
}

extern "C" __global__ void __launch_bounds__(TR_THREADS)
transpose(float *out, const float *in, int N, int M TR_ORDER_PARAM) {
  __shared__ float tile[TR_ROWS * TR_SROW];
  const int ord = TR_ORDER_OF;  // uniform: every block takes the same branch below

  // Lane mapping (see the top of the file): runs of TR_LX lanes along a 128-byte segment,
  // consecutive runs on consecutive rows. q < (TILE / (TR_LX*VEC)) * BLOCK_ROWS.
  const int lin = threadIdx.x + threadIdx.y * TR_TX;
  const int lx = lin % TR_LX;
  const int q = lin / TR_LX;
  const int rr = q % BLOCK_ROWS;                   // first row (load) / column (store) of this thread
  const int cv = (q / BLOCK_ROWS) * TR_LX + lx;    // vector index along the row: 0 .. TILE/VEC-1
  const int cw = cv * VEC;                         // its first word

  // Tiles of the whole matrix, walked in launch order b = 0, 1, ...: block b0 takes tiles
  // b0, b0 + nblocks, ... (TPB of them), so each round of resident blocks covers the same region
  // a one-tile-per-block launch would.
#if ALIGN
  const bool shifted = N % ALIGN != 0;             // the rows of out are not ALIGN-aligned
  const int gx = (M + TILE - 1) / TILE, gy = (N + (shifted ? ALIGN - 1 : 0) + TILE - 1) / TILE;
#else
  const int gx = (M + TILE - 1) / TILE, gy = (N + TILE - 1) / TILE;
#endif
  const int nblocks = gridDim.x * gridDim.y;
  const int b0 = blockIdx.y * gridDim.x + blockIdx.x;
  for (int j = 0; j < TPB; j++) {
  const int b = b0 + j * nblocks;
  if (b >= gx * gy) break;                         // uniform per block
  if (j) __syncthreads();                          // every thread is done with the previous tile
  int bx, by;
  if (ord == 0) {
    bx = b % gx;
    by = b / gx;
  } else if (ord == 1) {
    bx = b / gy;
    by = b % gy;
  } else {
    const int G = (ord == 2) ? 8 : 32;             // tile rows per band
    const int band = b / (G * gx);
    const int first = band * G;
    const int rows = (gy - first < G) ? gy - first : G;
    const int k = b - band * G * gx;
    by = first + k % rows;
    bx = k / rows;
  }
  const int x0 = bx * TILE;                        // tile origin: columns of in = rows of out
  const int y0 = by * TILE;                        // rows of in = columns of out

#if ALIGN
  if (shifted) {
    // Out row x0 + c gets the TILE columns from y0 - s (s = its shift): slab row ALIGN - s + j
    // holds column y0 - s + j. Slab row r is row y0 - ALIGN + r of in (row 0 is never needed:
    // s < ALIGN; it is loaded anyway, uniform loops). Lanes: as in the plain tile, a warp's
    // stores are one row of out, 32 consecutive columns from an ALIGN-aligned start.
    const int yb = y0 - ALIGN;
    if (x0 + TILE <= M && yb >= 0 && y0 + TILE <= N) {  // inside: no guards
      const float *src = in + (long long)(yb + rr) * M + (x0 + cw);
      TR_UNROLL_ROWS
      for (int i = 0; i < TR_ROWS / BLOCK_ROWS; i++)
        TR_SMEM(TR_SIDX(rr + i * BLOCK_ROWS, cw)) = tr_load1(src + (long long)i * BLOCK_ROWS * M);
      __syncthreads();
      TR_UNROLL_ROWS
      for (int i = 0; i < TR_RPT; i++) {
        const int c = rr + i * BLOCK_ROWS, x = x0 + c;
        const int sh = (int)(((unsigned)x * (unsigned)N) & (ALIGN - 1));  // (x*N + y0 - sh) % ALIGN == 0
        tr_store1(out + (long long)x * N + (y0 - sh + cw), TR_SMEM(TR_SIDX(ALIGN - sh + cw, c)));
      }
    } else {  // an edge: every load and store guarded
      TR_UNROLL_ROWS
      for (int i = 0; i < TR_ROWS / BLOCK_ROWS; i++) {
        const int r = rr + i * BLOCK_ROWS, y = yb + r, x = x0 + cw;
        if (y >= 0 && y < N && x < M) TR_SMEM(TR_SIDX(r, cw)) = tr_load1(in + (long long)y * M + x);
      }
      __syncthreads();
      TR_UNROLL_ROWS
      for (int i = 0; i < TR_RPT; i++) {
        const int c = rr + i * BLOCK_ROWS, x = x0 + c;
        const int sh = (int)(((unsigned)x * (unsigned)N) & (ALIGN - 1));
        const int y = y0 - sh + cw;
        if (x < M && y >= 0 && y < N) tr_store1(out + (long long)x * N + y, TR_SMEM(TR_SIDX(ALIGN - sh + cw, c)));
      }
    }
    continue;
  }
#endif
  const bool inside = (x0 + TILE <= M) && (y0 + TILE <= N);
  if (inside && M % VEC == 0 && N % VEC == 0) {
    const float *src = in + (long long)(y0 + rr) * M + (x0 + cw);
    TR_UNROLL_ROWS
    for (int i = 0; i < TR_RPT; i++) {
      const tr_vec v = tr_loadv(src + (long long)i * BLOCK_ROWS * M);
      const int r = rr + i * BLOCK_ROWS;
#pragma unroll
      for (int k = 0; k < VEC; k++) TR_SMEM(TR_SIDX(r, cw + k)) = tr_get(v, k);
    }
    __syncthreads();
    float *dst = out + (long long)(x0 + rr) * N + (y0 + cw);
    TR_UNROLL_ROWS
    for (int i = 0; i < TR_RPT; i++) {
      const int c = rr + i * BLOCK_ROWS;
      tr_vec w;
#pragma unroll
      for (int k = 0; k < VEC; k++) tr_set(w, k, TR_SMEM(TR_SIDX(cw + k, c)));
      tr_storev(dst + (long long)i * BLOCK_ROWS * N, w);
    }
#if VEC > 1
  } else if (inside) {
    // Rows that are not VEC-aligned (M or N not a multiple of VEC), inside the matrix: the
    // vectors of a row are shifted to its first aligned column s (0 <= s < VEC, different from
    // row to row), so the lanes keep their VEC-wide accesses; the last vector of each row, which
    // would cross the tile's edge, is peeled instead: its lane moves the s elements before the
    // first vector and the VEC - s after the last one, one by one. The same on the store side
    // with the rows of out.
    TR_UNROLL_ROWS
    for (int i = 0; i < TR_RPT; i++) {
      const int r = rr + i * BLOCK_ROWS;
      const int y = y0 + r;
      const int s = (int)((0u - (unsigned)y * (unsigned)M) & (VEC - 1));  // (y*M + x0 + s) % VEC == 0
      const float *row = in + (long long)y * M + x0;
      if (s == 0 || cv < TR_TX - 1) {
        const tr_vec v = tr_loadv(row + s + cw);
#pragma unroll
        for (int k = 0; k < VEC; k++) TR_SMEM(TR_SIDX(r, s + cw + k)) = tr_get(v, k);
      } else {
#pragma unroll
        for (int k = 0; k < VEC; k++) {
          const int c = k < s ? k : TILE - VEC + k;
          TR_SMEM(TR_SIDX(r, c)) = tr_load1(row + c);
        }
      }
    }
    __syncthreads();
    TR_UNROLL_ROWS
    for (int i = 0; i < TR_RPT; i++) {
      const int c = rr + i * BLOCK_ROWS;
      const int x = x0 + c;                        // row of out
      const int t = (int)((0u - (unsigned)x * (unsigned)N) & (VEC - 1));
      float *orow = out + (long long)x * N + y0;
      if (t == 0 || cv < TR_TX - 1) {
        tr_vec w;
#pragma unroll
        for (int k = 0; k < VEC; k++) tr_set(w, k, TR_SMEM(TR_SIDX(t + cw + k, c)));
        tr_storev(orow + t + cw, w);
      } else {
#pragma unroll
        for (int k = 0; k < VEC; k++) {
          const int r = k < t ? k : TILE - VEC + k;
          tr_store1(orow + r, TR_SMEM(TR_SIDX(r, c)));
        }
      }
    }
#endif
  } else {
    // Edge tile: same mapping, scalar and guarded. Slots outside the matrix are left unwritten in
    // shared memory and never read back into out.
    TR_UNROLL_ROWS
    for (int i = 0; i < TR_RPT; i++) {
      const int r = rr + i * BLOCK_ROWS;
      const int y = y0 + r;
#pragma unroll
      for (int k = 0; k < VEC; k++) {
        const int x = x0 + cw + k;
        if (y < N && x < M) TR_SMEM(TR_SIDX(r, cw + k)) = tr_load1(in + (long long)y * M + x);
      }
    }
    __syncthreads();
    TR_UNROLL_ROWS
    for (int i = 0; i < TR_RPT; i++) {
      const int c = rr + i * BLOCK_ROWS;
      const int x = x0 + c;                        // row of out
#pragma unroll
      for (int k = 0; k < VEC; k++) {
        const int y = y0 + cw + k;                 // column of out
        if (x < M && y < N) tr_store1(out + (long long)x * N + y, TR_SMEM(TR_SIDX(cw + k, c)));
      }
    }
  }
  }  // tiles of this block
}

#endif  // tiled

#else  // CUTUNE_REFERENCE

// The reference: one element per thread, nothing clever. Block {32, 8}, grid (ceil(M/32), ceil(N/8)).
extern "C" __global__ void transpose_ref(float *out, const float *in, int N, int M) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;  // column of in
  const int y = blockIdx.y * blockDim.y + threadIdx.y;  // row of in
  if (x < M && y < N) out[(long long)x * N + y] = in[(long long)y * M + x];
}

#endif  // CUTUNE_REFERENCE
