// hgemm: BF16 (or FP16) GEMM on tensor cores with FP32 accumulation, one template for every variant.
//
//   C (M x N, float32) = alpha * A (M x K) * B (K x N) + beta * C, all row-major (leading dimensions
//   K, N and N), A and B in bfloat16 (half with -DHG_F16=1), every product accumulated in float32
//   by the tensor cores. B is K x N row-major, as in the SGEMM space (templates/matmul.cu) and
//   cuBLAS's C = A B with no transposes; the tensor cores read it N-major (ldmatrix.trans,
//   wgmma's transposed B). beta = 0 does not read C (the BLAS convention).
//
// Two MMA paths (WG):
//   WG=0  mma.sync.m16n8k16 (sm_80 and later): warps of WM x WN, fragments read with ldmatrix
//         (x4; .trans for B), a cp.async pipeline of STAGES shared buffers, one barrier per k tile.
//   WG=1  wgmma (sm_90a only): warpgroups of 128 threads, each a WM x WN tile of C in registers
//         (WM/64 wgmma.m64nWNk16 per k16 step), A and B read by the tensor cores straight from
//         shared memory through matrix descriptors. WS=0: every warpgroup loads (cp.async) and
//         computes, one barrier per k tile; WS=1: warp-specialized, one producer warpgroup issues
//         the cp.async of STAGES buffers and signals them full on mbarriers, the consumer
//         warpgroups wait on them, compute and signal them empty; REGS=1 moves registers from
//         the producer to the consumers (setmaxnreg). WAITG: wgmma groups left in flight (0 or 1)
//         before the stage they read is given back.
//   (There is no TMA producer: a tensor map is made on the host per buffer, and cutune's GPU
//   worker passes buffers and scalars only. The cp.async producers keep every variant tunable.)
//
// Parameters (each a -D; GROUPM and SPLITK are kernel arguments, runtime parameters of
// lua/hgemm_space.lua; -DGROUPM=v / -DSPLITK=v fix them at compile time instead):
//   WG          0 mma.sync, 1 wgmma (above).
//   BM, BN, BK  block tile: a block computes BM x BN of C, walking K in steps of BK (multiple of 16).
//   WM, WN      warp tile (WG=0: multiples of 16; the block has (BM/WM)*(BN/WN) warps) or
//               warpgroup tile (WG=1: WM 64 or 128, WN 64, 128 or 256; (BM/WM)*(BN/WN) consumer
//               warpgroups, plus the producer with WS=1).
//   STAGES      shared-memory buffers of the pipeline (WS=0: >= 2 + WAITG; WS=1: >= 1 + WAITG).
//   SWZ         shared-memory swizzle, bytes: 128, 64, 32 (WG=0 also 0: no swizzle). A tile is
//               stored in blocks SWZ bytes wide ([k/(SWZ/2)][m][SWZ/2] for A, [n/(SWZ/2)][k][SWZ/2]
//               for B: the canonical K-major and MN-major layouts of wgmma), and in each the 16-byte
//               chunk c of the 128-byte line l moves to c ^ (l mod SWZ/16): the eight rows an
//               ldmatrix reads (and the lines wgmma reads) fall in eight different bank groups.
//               SWZ=0: rows of BK (A) and BN (B) elements as they are: 8-way conflicts for the
//               fragment reads, kept to show what the swizzle is worth.
//   WS, WAITG, REGS   WG=1 only (above); 0 with WG=0.
//   GROUPM      block order: bands of GROUPM block rows (L2 reuse), as in templates/matmul.cu.
//   SPLITK      the K loop split over SPLITK blocks per tile of C: split 0 writes alpha*AB + beta*C,
//               then the others add theirs (atomics, so the last bits depend on their order).
//               flags[tile] orders them: split 0 raises it when its tile is written, the others
//               wait for that, and the last to add puts it back to 0 (a launch leaves flags
//               zero). The splits of a tile wait only on split 0, whose blocks come first in the
//               grid (block b: tile b % tiles, split b / tiles), so they have started before any
//               block that waits on them (blocks are started in order of their index).
//
// Global loads: 16-byte cp.async (zero-filled outside A and B: no guards in the inner loop) when
// the operand's rows are 16-byte aligned (K % 8 == 0 for A, N % 8 == 0 for B: the fast path,
// with 16-byte aligned buffers). Otherwise the same 16-byte chunks of shared memory are filled in
// 8-byte (K % 4 == 0) or 4-byte (K % 2 == 0) cp.async pieces, or element by element with plain
// loads and a 16-byte shared store (odd leading dimensions), in loops that are not unrolled.
// The epilogue stores float2 pairs of C where N is even, else element by element.
//
// Launch (as lua/hgemm_space.lua computes it): block HG_THREADS, grid ceil(M/BM)*ceil(N/BN)*SPLITK,
// dynamic shared memory HG_SMEM = 1024 (to align the tiles to the swizzle's 1024-byte pattern)
// + STAGES * 2 * (BM + BN) * BK, + 16 * STAGES for the mbarriers with WS=1.
// Kernel arguments: (C, A, B, M, N, K, alpha, beta, groupm, splitk, flags), flags at least
// ceil(M/BM)*ceil(N/BN) ints, zero before the first launch (read only when splitk > 1).
//
// With -DHG_EMU the file compiles as C++ for bench/hgemm_emu.cpp (a CPU emulator that runs every
// thread, emulates ldmatrix, mma.sync, wgmma with its descriptors, cp.async, mbarriers and the
// proxy fence, and checks C). With -DCUTUNE_REFERENCE=1 the file provides only hgemm_ref: one
// element of C per thread, accumulated in float64, block {16, 16}, grid (ceil(N/16), ceil(M/16)).

typedef unsigned short hg_t;  // the bits of a bfloat16 (or half) element

#ifdef HG_F16
#define HG_TY "f16"
#else
#define HG_TY "bf16"
#endif

#ifndef CUTUNE_REFERENCE

#ifndef WG
#define WG 0
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 64
#endif
#ifndef STAGES
#define STAGES 4
#endif
#ifndef SWZ
#define SWZ 64
#endif
#ifndef WS
#define WS 0
#endif
#ifndef WAITG
#define WAITG 0
#endif
#ifndef REGS
#define REGS 0
#endif
#ifndef TMA
#define TMA 0
#endif

#if WG
#define HG_CWG ((BM / WM) * (BN / WN))   // consumer warpgroups
#define HG_THREADS (128 * (HG_CWG + WS))
#define HG_NP (WS ? 128 : HG_THREADS)    // threads that load
#else
#define HG_THREADS (32 * (BM / WM) * (BN / WN))
#define HG_NP HG_THREADS
#endif
#define HG_WA (SWZ ? SWZ : 2 * BK)       // bytes per row of a block of the A tile
#define HG_WB (SWZ ? SWZ : 2 * BN)       // ... of the B tile
#define HG_MASK (SWZ ? SWZ / 16 - 1 : 0)
#define HG_ABYTES (2 * BM * BK)
#define HG_BBYTES (2 * BK * BN)
#define HG_STAGE (HG_ABYTES + HG_BBYTES)
#define HG_BARS (WG && WS ? 16 * STAGES : 0)
#define HG_SMEM (1024 + STAGES * HG_STAGE + HG_BARS)
#define HG_D (STAGES - 1 - WAITG)        // k tiles loading ahead of the one computed
// per-thread load geometry: chunks of 8 elements (16 bytes); a thread's A chunks are rows
// HG_RA apart at one k offset, its B chunks rows HG_RB apart at one n offset
#define HG_RA (HG_NP / (BK / 8))
#define HG_AL (BM / HG_RA)
#define HG_RB (HG_NP / (BN / 8))
#define HG_BL (BK / HG_RB)
#if WG
// REGS=1 (two consumer warpgroups, 384 threads: 168 registers each at launch, the cap of
// __launch_bounds__(384, 1)): the producer keeps 104 (its cp.async address arithmetic spilled at
// 96 for a 256 x 128 tile, at 40-72 for 128 x 256), the consumers share the rest of the block's
// 64,512: 200 each.
#define HG_PREGS 104
#define HG_CREGS (((168 * 384 - 128 * HG_PREGS) / 256) & ~7)
#endif

#if WG != 0 && WG != 1
#error "WG must be 0 (mma.sync) or 1 (wgmma)"
#endif
#if BM % WM || BN % WN || BK % 16 || BM % 64 || BN % 64
#error "BM, BN: multiples of 64 and of WM, WN; BK a multiple of 16"
#endif
#if WG == 0 && (WM % 16 || WN % 16 || WS || WAITG || REGS)
#error "WG=0: WM, WN multiples of 16; WS, WAITG and REGS are for WG=1"
#endif
#if WG == 1 && ((WM != 64 && WM != 128) || (WN != 64 && WN != 128 && WN != 256) || WM * WN > 16384)
#error "WG=1: WM 64 or 128, WN 64, 128 or 256, at most 128 accumulators per thread"
#endif
#if SWZ != 0 && SWZ != 32 && SWZ != 64 && SWZ != 128
#error "SWZ must be 0, 32, 64 or 128"
#endif
#if SWZ && ((2 * BK) % SWZ || (2 * BN) % SWZ)
#error "SWZ must divide the rows of both tiles (2*BK and 2*BN bytes)"
#endif
#if WG == 1 && SWZ == 0
#error "WG=1 needs a swizzled layout (SWZ 32, 64 or 128)"
#endif
#if WAITG < 0 || WAITG > 1 || (WS == 0 && STAGES < 2 + WAITG) || (WS == 1 && STAGES < 1 + WAITG)
#error "WAITG 0 or 1; STAGES >= 2 + WAITG (WS=0) or >= 1 + WAITG (WS=1)"
#endif
#if TMA && !(WG == 1 && WS == 1)
#error "TMA=1 loads through the producer warpgroup: WG=1, WS=1"
#endif
#if REGS && (!WS || HG_CWG != 2)
#error "REGS=1 moves registers from the producer warpgroup to two consumer warpgroups: WS=1, (BM/WM)*(BN/WN) = 2"
#endif
#if HG_NP % (BK / 8) || HG_NP % (BN / 8) || (BM * BK / 8) % HG_NP || (BK * BN / 8) % HG_NP
#error "the A and B tiles' 16-byte chunks must divide evenly over the loading threads"
#endif
#if HG_THREADS > 1024
#error "more than 1024 threads per block"
#endif

// WG=1 needs sm_90a's wgmma and setmaxnreg, WG=0 sm_80's bfloat16 mma.sync. Built for another
// target (the launchers build every shipped configuration for every architecture listed) the
// kernel is a trap that is never launched (kernels/hgemm_launch.cu takes its fallback there, or
// refuses a GPU older than sm_80); sm_90 without the 'a' for WG=1 is a mistake.
#if WG == 1 && defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#if __CUDA_ARCH__ == 900
#error "WG=1 (wgmma) must be built for sm_90a (nvcc -gencode arch=compute_90a,code=sm_90a; NVRTC --gpu-architecture=sm_90a)"
#endif
#define HG_TRAP 1
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define HG_TRAP 1
#endif

#define HG_PRAGMA_(x) _Pragma(#x)

// A CUtensorMap as the kernel receives it (cuda.h's type, which NVRTC lacks): 128 opaque bytes,
// 64-byte aligned, passed by value as a __grid_constant__ parameter.
#ifndef HG_EMU  // the emulator's has its own encoding
struct __align__(64) hg_tmap_t { unsigned long long v[16]; };
#endif

#ifdef HG_EMU
// bench/hgemm_emu.cpp provides every hg_* primitive below, __syncthreads, atomics and
// hg_emu_smem() (the dynamic shared memory of the block), and runs each thread as a coroutine.
#else
__device__ __forceinline__ unsigned hg_saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
// cp.async of 16, 8 or 4 bytes; bytes < size fills the rest with zeros (0: all zeros, no read)
__device__ __forceinline__ void hg_cp16(unsigned dst, const void *src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void hg_cp8(unsigned dst, const void *src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void hg_cp4(unsigned dst, const void *src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void hg_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void hg_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
__device__ __forceinline__ void hg_sts16(unsigned dst, unsigned a, unsigned b, unsigned c, unsigned d) {
  asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}
__device__ __forceinline__ hg_t hg_ldg(const hg_t *p) { return __ldg(p); }
__device__ __forceinline__ void hg_ldsm4(unsigned (&r)[4], unsigned a) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a) : "memory");
}
__device__ __forceinline__ void hg_ldsm4t(unsigned (&r)[4], unsigned a) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a) : "memory");
}
__device__ __forceinline__ void hg_mma(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." HG_TY "." HG_TY ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// split-K: the flag of a tile (acquire: what its writer stored before raising it is visible)
__device__ __forceinline__ int hg_flag_load(const int *p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void hg_pause() { __nanosleep(100); }
#if WG == 1 && !defined(HG_TRAP)
__device__ __forceinline__ void hg_fence_proxy() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void hg_mbar_init(unsigned a, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(a), "r"(count) : "memory");
}
__device__ __forceinline__ void hg_mbar_arrive(unsigned a) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(a) : "memory");
}
// 1 once the phase of the given parity is complete (the previous phase, for a parity other than
// the current one's: a fresh barrier passes parity 1 at once)
__device__ __forceinline__ bool hg_mbar_try(unsigned a, unsigned parity) {
  unsigned ok;
  asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(ok) : "r"(a), "r"(parity) : "memory");
  return ok != 0;
}
// TMA: arrive on an mbarrier announcing `bytes` of transactions to come; a 2D box of the tensor
// map at coordinates (c0 innermost, c1) into shared memory at dst (swizzled as the map says),
// counted on mbarrier mbar when it lands
__device__ __forceinline__ void hg_mbar_expect(unsigned a, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(a), "r"(bytes) : "memory");
}
__device__ __forceinline__ void hg_tma2d(unsigned dst, const hg_tmap_t *map, int c0, int c1, unsigned mbar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
               ::"r"(dst), "l"((unsigned long long)map), "r"(c0), "r"(c1), "r"(mbar) : "memory");
}
__device__ __forceinline__ void hg_tma_prefetch(const hg_tmap_t *map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"((unsigned long long)map) : "memory");
}
__device__ __forceinline__ void hg_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void hg_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void hg_wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
// the compiler must not move an accumulator's uses across the wgmma that writes it asynchronously
__device__ __forceinline__ void hg_fence_reg(float &r) { asm volatile("" : "+f"(r)::"memory"); }
template <int N>
__device__ __forceinline__ void hg_setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N)); }
template <int N>
__device__ __forceinline__ void hg_setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N)); }

// wgmma.mma_async m64nNk16, f32 += A (K-major, descriptor) * B (N-major: transposed, descriptor),
// scale-d 1 (accumulate); the operand lists for N = 64, 128, 256.
__device__ __forceinline__ void hg_wgmma_n64(float (&d)[32], unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32." HG_TY "." HG_TY " {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1, 0, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "n"(1)
      : "memory");
}
__device__ __forceinline__ void hg_wgmma_n128(float (&d)[64], unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32." HG_TY "." HG_TY " {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
      "}, %64, %65, p, 1, 1, 0, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "n"(1)
      : "memory");
}
__device__ __forceinline__ void hg_wgmma_n256(float (&d)[128], unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32." HG_TY "." HG_TY " {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, %128, %129, p, 1, 1, 0, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db), "n"(1)
      : "memory");
}
#endif  // WG == 1 && !HG_TRAP
#endif  // HG_EMU

#if WG == 1 && !defined(HG_TRAP)
template <int N> struct hg_wgmma_op;
template <> struct hg_wgmma_op<64> { static __device__ __forceinline__ void run(float (&d)[32], unsigned long long a, unsigned long long b) { hg_wgmma_n64(d, a, b); } };
template <> struct hg_wgmma_op<128> { static __device__ __forceinline__ void run(float (&d)[64], unsigned long long a, unsigned long long b) { hg_wgmma_n128(d, a, b); } };
template <> struct hg_wgmma_op<256> { static __device__ __forceinline__ void run(float (&d)[128], unsigned long long a, unsigned long long b) { hg_wgmma_n256(d, a, b); } };

// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address,
// leading and stride byte offsets (all >> 4), swizzle mode (1: 128B, 2: 64B, 3: 32B) in bits 62-63.
__device__ __forceinline__ unsigned long long hg_desc(unsigned addr, unsigned lbo, unsigned sbo) {
  const unsigned long long mode = SWZ == 128 ? 1 : SWZ == 64 ? 2 : 3;
  return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
         ((unsigned long long)(sbo >> 4) << 32) | (mode << 62);
}
#endif

// The swizzle of a byte offset from a 1024-byte aligned base (the tiles' bases are multiples of
// 1024, so the pattern of each tile is the same as the hardware's, which reads address bits).
__device__ __forceinline__ unsigned hg_swz(unsigned o) { return o ^ (((o >> 7) & HG_MASK) << 4); }
// byte offset of element (m, k) of a stage's A tile and of (k, n) of its B tile, before the swizzle
#define HG_AOFF(m, k) ((2 * (k)) / HG_WA * (BM * HG_WA) + (m) * HG_WA + (2 * (k)) % HG_WA)
#define HG_BOFF(k, n) ((2 * (n)) / HG_WB * (BK * HG_WB) + (k) * HG_WB + (2 * (n)) % HG_WB)

#if WG == 1 && WS == 1 && !defined(HG_EMU) && !defined(HG_TRAP)
// the consumer warpgroups only: named barrier 1 (the producer is not there to meet barrier 0)
__device__ __forceinline__ void hg_bar_consumers() { asm volatile("bar.sync 1, %0;\n" ::"n"(128 * HG_CWG) : "memory"); }
#endif

// The epilogue of a thread: pair(q, r, c, v0, v1) gives its pair q of accumulators, for C at
// (r, c) and (r, c + 1); C = alpha * v + beta * C there (C += alpha * v with add, by atomics;
// beta = 0 does not read C). In chunks of 8 pairs whose loads of C are issued before their
// stores (a load cannot move above an earlier store to C, which may alias it), so that a thread
// waits for memory NPAIR/8 times, not NPAIR.
template <int NPAIR, class F>
__device__ __forceinline__ void hg_store(float *C, int M, int N, float alpha, float beta, bool add, F pair) {
  constexpr int EC = NPAIR < 8 ? NPAIR : 8;
  const bool cvec = (N & 1) == 0, rd = beta != 0.f && !add;
#pragma unroll
  for (int q0 = 0; q0 < NPAIR; q0 += EC) {
    float old[EC][2];
#pragma unroll
    for (int e = 0; e < EC; e++) {
      int r, c;
      float v0, v1;
      pair(q0 + e, r, c, v0, v1);
      old[e][0] = old[e][1] = 0.f;
      if (rd && r < M && c < N) {
        const float *p = C + (long long)r * N + c;
        if (cvec) {
          const float2 x = *reinterpret_cast<const float2 *>(p);
          old[e][0] = x.x, old[e][1] = x.y;
        } else {
          old[e][0] = p[0];
          if (c + 1 < N) old[e][1] = p[1];
        }
      }
    }
#pragma unroll
    for (int e = 0; e < EC; e++) {
      int r, c;
      float v0, v1;
      pair(q0 + e, r, c, v0, v1);
      if (r >= M || c >= N) continue;
      float *p = C + (long long)r * N + c;
      if (add) {
        atomicAdd(p, alpha * v0);
        if (c + 1 < N) atomicAdd(p + 1, alpha * v1);
        continue;
      }
      const float o0 = alpha * v0 + beta * old[e][0], o1 = alpha * v1 + beta * old[e][1];
      if (cvec) *reinterpret_cast<float2 *>(p) = make_float2(o0, o1);
      else {
        p[0] = o0;
        if (c + 1 < N) p[1] = o1;
      }
    }
  }
}

extern "C" __global__ void __launch_bounds__(HG_THREADS, 1)
hgemm(float *C, const hg_t *A, const hg_t *B, int M, int N, int K, float alpha, float beta, int groupm, int splitk,
      int *flags, const __grid_constant__ hg_tmap_t tmA, const __grid_constant__ hg_tmap_t tmB) {
#if defined(HG_TRAP)
  (void)C, (void)A, (void)B, (void)M, (void)N, (void)K, (void)alpha, (void)beta, (void)groupm, (void)splitk, (void)flags;
  (void)tmA, (void)tmB;
  __trap();  // built for a target without this configuration's instructions: never launched
#else
#ifdef GROUPM
  (void)groupm;
  const int group_m = GROUPM;
#else
  const int group_m = groupm > 0 ? groupm : 1;
#endif
#ifdef SPLITK
  (void)splitk;
  const int split = SPLITK;
#else
  const int split = splitk > 0 ? splitk : 1;
#endif
#ifdef HG_EMU
  unsigned char *smem_raw = hg_emu_smem();
#else
  extern __shared__ __align__(16) unsigned char smem_raw[];
#endif
  const unsigned sbase = (hg_saddr(smem_raw) + 1023u) & ~1023u;
  const int tid = threadIdx.x;

  // The tile of C and the k tiles of this block: tile b % tiles, split b / tiles; tiles in bands
  // of group_m block rows, column by column inside a band.
  const int gm = (M + BM - 1) / BM, gn = (N + BN - 1) / BN, tiles = gm * gn;
  const int b = blockIdx.x, z = b / tiles, t = b - z * tiles;
  const int band = t / (group_m * gn), first = band * group_m;
  const int rows = gm - first < group_m ? gm - first : group_m;
  const int inband = t - band * group_m * gn;
  const int m0 = (first + inband % rows) * BM, n0 = (inband / rows) * BN;
  const int KT = (K + BK - 1) / BK, per = (KT + split - 1) / split;
  const int kt0 = z * per < KT ? z * per : KT;
  const int nk = (kt0 + per < KT ? kt0 + per : KT) - kt0;

  // ---- loads: k tile kt into stage `stage`, by loading thread pt of HG_NP ----
  const bool avec = (K & 7) == 0, bvec = (N & 7) == 0;
  // 8 elements of one row (row: its first element, or any valid pointer when !rowok) from column
  // col into the 16 bytes at dst, elements at col >= lim zero: the unaligned operand's path
  auto chunk_slow = [&](unsigned dst, const hg_t *row, bool rowok, int col, int lim, int ld) {
    if ((ld & 3) == 0) {
#pragma unroll
      for (int p = 0; p < 2; p++) {
        const bool ok = rowok && col + 4 * p < lim;
        hg_cp8(dst + 8 * p, ok ? row + col + 4 * p : row, ok ? 8 : 0);
      }
    } else if ((ld & 1) == 0) {
#pragma unroll
      for (int p = 0; p < 4; p++) {
        const bool ok = rowok && col + 2 * p < lim;
        hg_cp4(dst + 4 * p, ok ? row + col + 2 * p : row, ok ? 4 : 0);
      }
    } else {
      unsigned w[4];
#pragma unroll
      for (int p = 0; p < 4; p++) {
        const unsigned lo = rowok && col + 2 * p < lim ? hg_ldg(row + col + 2 * p) : 0;
        const unsigned hi = rowok && col + 2 * p + 1 < lim ? hg_ldg(row + col + 2 * p + 1) : 0;
        w[p] = lo | hi << 16;
      }
      hg_sts16(dst, w[0], w[1], w[2], w[3]);
    }
  };
  auto load_tile = [&](int kt, int stage, int pt) {
    const unsigned sa = sbase + stage * HG_STAGE, sb = sa + HG_ABYTES;
    const int k0 = kt * BK;
    const int ra = pt / (BK / 8), ka = 8 * (pt % (BK / 8));  // A: rows ra + l*HG_RA, columns ka..ka+7
    const int kb = pt / (BN / 8), nb = 8 * (pt % (BN / 8));  // B: rows kb + l*HG_RB, columns nb..nb+7
    if (avec) {
#pragma unroll
      for (int l = 0; l < HG_AL; l++) {
        const int m = ra + l * HG_RA;
        const bool ok = m0 + m < M && k0 + ka < K;
        hg_cp16(sa + hg_swz(HG_AOFF(m, ka)), ok ? A + (long long)(m0 + m) * K + k0 + ka : A, ok ? 16 : 0);
      }
    } else {
#pragma unroll 1
      for (int l = 0; l < HG_AL; l++) {
        const int m = ra + l * HG_RA;
        const bool rowok = m0 + m < M;
        chunk_slow(sa + hg_swz(HG_AOFF(m, ka)), rowok ? A + (long long)(m0 + m) * K : A, rowok, k0 + ka, K, K);
      }
    }
    if (bvec) {
#pragma unroll
      for (int l = 0; l < HG_BL; l++) {
        const int k = kb + l * HG_RB;
        const bool ok = k0 + k < K && n0 + nb < N;
        hg_cp16(sb + hg_swz(HG_BOFF(k, nb)), ok ? B + (long long)(k0 + k) * N + n0 + nb : B, ok ? 16 : 0);
      }
    } else {
#pragma unroll 1
      for (int l = 0; l < HG_BL; l++) {
        const int k = kb + l * HG_RB;
        const bool rowok = k0 + k < K;
        chunk_slow(sb + hg_swz(HG_BOFF(k, nb)), rowok ? B + (long long)(k0 + k) * N : B, rowok, n0 + nb, N, N);
      }
    }
  };

  // ---- the epilogue: split 0 (or the only one) writes alpha*acc + beta*C, the others add
  // alpha*acc once split 0's tile is written (flags[t] raised), the last of them lowers it ----
  const bool serial = split > 1, add = serial && z > 0;
  auto split_done = [&]() {
    if (!serial) return;
    __threadfence();
    __syncthreads();
    if (tid == 0 && atomicAdd(flags + t, 1) == split - 1) atomicExch(flags + t, 0);
  };

#if WG == 0
  // ---- mma.sync: warp (wm0, wn0) computes WM x WN as (WM/16) x (WN/8) m16n8 tiles ----
  constexpr int MT = WM / 16, NT = WN / 8;
  const int warp = tid / 32, lane = tid % 32;
  const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
  float acc[MT][NT][4];
#pragma unroll
  for (int i = 0; i < MT; i++)
#pragma unroll
    for (int j = 0; j < NT; j++)
#pragma unroll
      for (int e = 0; e < 4; e++) acc[i][j][e] = 0.f;
  auto compute = [&](int stage) {
    const unsigned sa = sbase + stage * HG_STAGE, sb = sa + HG_ABYTES;
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++) {
      unsigned af[MT][4], bfr[NT][2];
      // A: lanes 0-15 address rows 0-15 at k 0-7, lanes 16-31 the same rows at k 8-15 (the
      // four 8x8 matrices are a0..a3 of the m16n8k16 A fragment)
#pragma unroll
      for (int i = 0; i < MT; i++) hg_ldsm4(af[i], sa + hg_swz(HG_AOFF(wm0 + 16 * i + (lane & 15), 16 * kk + 8 * (lane >> 4))));
      // B (k-major rows of n): lanes 0-7 k 0-7, 8-15 k 8-15, at n 0-7; lanes 16-31 the same at
      // n 8-15; transposed, the four matrices are b0, b1 of two n8 tiles
#pragma unroll
      for (int j = 0; j < NT / 2; j++) {
        unsigned r[4];
        hg_ldsm4t(r, sb + hg_swz(HG_BOFF(16 * kk + (lane & 7) + 8 * ((lane >> 3) & 1), wn0 + 16 * j + 8 * (lane >> 4))));
        bfr[2 * j][0] = r[0], bfr[2 * j][1] = r[1], bfr[2 * j + 1][0] = r[2], bfr[2 * j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++) hg_mma(acc[i][j], af[i], bfr[j]);
    }
  };
  // the pipeline: k tiles HG_D ahead; the barrier of tile it also ends every read of the stage
  // that tile it + HG_D overwrites (tile it - 1's)
  for (int s = 0; s < HG_D; s++) {
    if (s < nk) load_tile(kt0 + s, s, tid);
    hg_commit();  // empty groups keep the count uniform
  }
  int rd = 0, wr = HG_D;
  for (int it = 0; it < nk; it++) {
    hg_wait<HG_D - 1>();
    __syncthreads();
    if (it + HG_D < nk) load_tile(kt0 + it + HG_D, wr, tid);
    hg_commit();
    compute(rd);
    rd = rd + 1 == STAGES ? 0 : rd + 1;
    wr = wr + 1 == STAGES ? 0 : wr + 1;
  }
  hg_wait<0>();
  if (add) {
    if (tid == 0)
      while (hg_flag_load(flags + t) == 0) hg_pause();
    __syncthreads();
  }
  // pairs of adjacent columns: (i, j, h) -> rows lane/4 (+8 for h = 1) of m16n8 tile (i, j)
  hg_store<MT * NT * 2>(C, M, N, alpha, beta, add, [&](int q, int &r, int &c, float &v0, float &v1) {
    const int i = q / (2 * NT), j = (q / 2) % NT, h = q % 2;
    r = m0 + wm0 + 16 * i + lane / 4 + 8 * h;
    c = n0 + wn0 + 8 * j + 2 * (lane % 4);
    v0 = acc[i][j][2 * h], v1 = acc[i][j][2 * h + 1];
  });
#else
  // ---- wgmma: consumer warpgroup cw computes WM x WN as WM/64 m64nWN tiles ----
  const int wg = tid / 128;
  const int cw = wg - WS;  // -1: the producer (WS=1)
  const int wm0 = cw < 0 ? 0 : (cw / (BN / WN)) * WM, wn0 = cw < 0 ? 0 : (cw % (BN / WN)) * WN;
  const int lane = tid % 32, wq = (tid / 32) % 4;
  constexpr int MI = WM / 64;
  typedef float acc_t[MI][WN / 2];
  auto zero_acc = [&](acc_t &acc) {
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
      for (int j = 0; j < WN / 2; j++) acc[i][j] = 0.f;
  };
  auto fence_acc = [&](acc_t &acc) {
#pragma unroll
    for (int i = 0; i < MI; i++)
#pragma unroll
      for (int j = 0; j < WN / 2; j++) hg_fence_reg(acc[i][j]);
  };
  // One k tile: A K-major (SBO: 8 rows of the swizzle's width; no LBO: the k16 step lies in one
  // row), B N-major (LBO: from one SWZ-wide block of columns to the next; SBO: 8 k rows). The k16
  // step kk starts 32*kk bytes into A's row and 16*kk rows down B's block.
  auto compute = [&](acc_t &acc, int stage) {
    const unsigned sa = sbase + stage * HG_STAGE, sb = sa + HG_ABYTES;
    hg_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; kk++)
#pragma unroll
      for (int i = 0; i < MI; i++)
        hg_wgmma_op<WN>::run(acc[i], hg_desc(sa + HG_AOFF(wm0 + 64 * i, 16 * kk), 16, 8 * HG_WA),
                              hg_desc(sb + HG_BOFF(16 * kk, wn0), BK * HG_WB, 8 * HG_WB));
    hg_wgmma_commit();
  };
  // pairs of adjacent columns (the wgmma D fragment: thread l of warp wq of the warpgroup holds,
  // per 8 columns, rows 16wq + l/4 and +8 at columns 2(l%4) and +1)
  auto store = [&](acc_t &acc) {
    hg_store<MI * WN / 4>(C, M, N, alpha, beta, add, [&](int q, int &r, int &c, float &v0, float &v1) {
      const int i = q / (WN / 4), jj = 2 * (q % (WN / 4));
      r = m0 + wm0 + 64 * i + 16 * wq + lane / 4 + 8 * ((jj % 4) / 2);
      c = n0 + wn0 + 8 * (jj / 4) + 2 * (lane % 4);
      v0 = acc[i][jj], v1 = acc[i][jj + 1];
    });
  };
#if WS == 0
  // every warpgroup loads and computes; a barrier per k tile, as in the mma.sync path, after each
  // thread's proxy fence (its cp.async wrote through the generic proxy, wgmma reads through the
  // async one). Tile it + HG_D goes to the stage of tile it - 1 - WAITG, whose wgmma every
  // thread has waited for before the barrier.
  acc_t acc;
  zero_acc(acc);
  fence_acc(acc);
  for (int s = 0; s < HG_D; s++) {
    if (s < nk) load_tile(kt0 + s, s, tid);
    hg_commit();
  }
  int rd = 0, wr = HG_D;
  for (int it = 0; it < nk; it++) {
    hg_wait<HG_D - 1>();
    hg_fence_proxy();
    __syncthreads();
    if (it + HG_D < nk) load_tile(kt0 + it + HG_D, wr, tid);
    hg_commit();
    compute(acc, rd);
    hg_wgmma_wait<WAITG>();
    fence_acc(acc);
    rd = rd + 1 == STAGES ? 0 : rd + 1;
    wr = wr + 1 == STAGES ? 0 : wr + 1;
  }
  hg_wgmma_wait<0>();
  fence_acc(acc);
  hg_wait<0>();
  if (add) {
    if (tid == 0)
      while (hg_flag_load(flags + t) == 0) hg_pause();
    __syncthreads();
  }
  store(acc);
#else
  // warp-specialized: full[s] (128 producer arrivals: stage s holds its tile) and empty[s] (every
  // consumer thread's arrival: its wgmma on stage s are done) after the tiles. The accumulators
  // live in the consumer branch only, so that the producer's registers are few.
  const unsigned full = sbase + STAGES * HG_STAGE, empty = full + 8 * STAGES;
  // TMA=1: one thread of the producer loads each stage with tensor copies (tmA: A as {K, M},
  // boxes {SWZ/2, BM}; tmB: B as {N, K}, boxes {SWZ/2, BK}; swizzled as the tiles are; zeros
  // outside), announced on full[s] with their byte count. The maps exist where the driver could
  // encode them: rows of A and B 16-byte multiples, the buffers 16-byte aligned; elsewhere
  // (tmA, tmB are then zero) the producer warpgroup's cp.async path runs instead.
  const bool tma = TMA && avec && bvec && ((unsigned long long)A & 15) == 0 && ((unsigned long long)B & 15) == 0;
  if (tid == 0)
    for (int s = 0; s < STAGES; s++) {
      hg_mbar_init(full + 8 * s, tma ? 1 : 128);
      hg_mbar_init(empty + 8 * s, 128 * HG_CWG);
    }
  __syncthreads();
  if (cw < 0) {
#if REGS
    hg_setmaxnreg_dec<HG_PREGS>();
#endif
    // Tile it waits for its stage's release (use it/STAGES - 1; the first use passes), is loaded,
    // and is announced HG_D tiles later, once this thread's copies of it have landed and been
    // fenced. Each consumer gives a stage back WAITG tiles after computing on it, so tile it's
    // release needs tile it + WAITG announced: HG_D + WAITG < STAGES keeps that before the
    // producer needs the stage again.
#if TMA
    if (tma) {
      if (tid == 0) {
        hg_tma_prefetch(&tmA), hg_tma_prefetch(&tmB);
        int s = 0, ph = 0;
        for (int it = 0; it < nk; it++) {
          while (!hg_mbar_try(empty + 8 * s, ph ^ 1)) {}
          const unsigned f = full + 8 * s, sa = sbase + s * HG_STAGE, sb = sa + HG_ABYTES;
          const int k0 = (kt0 + it) * BK;
          hg_mbar_expect(f, HG_STAGE);
#pragma unroll
          for (int j = 0; j < BK / (SWZ / 2); j++) hg_tma2d(sa + j * BM * SWZ, &tmA, k0 + j * (SWZ / 2), m0, f);
#pragma unroll
          for (int j = 0; j < BN / (SWZ / 2); j++) hg_tma2d(sb + j * BK * SWZ, &tmB, n0 + j * (SWZ / 2), k0, f);
          if (++s == STAGES) s = 0, ph ^= 1;
        }
      }
    } else
#endif
    {
    int s = 0, ph = 0;
    for (int it = 0; it < nk; it++) {
      while (!hg_mbar_try(empty + 8 * s, ph ^ 1)) {}
      load_tile(kt0 + it, s, tid);
      hg_commit();
      if (it >= HG_D) {
        hg_wait<HG_D>();
        hg_fence_proxy();
        hg_mbar_arrive(full + 8 * ((it - HG_D) % STAGES));
      }
      if (++s == STAGES) s = 0, ph ^= 1;
    }
    hg_wait<0>();
    hg_fence_proxy();
    for (int it = nk - HG_D > 0 ? nk - HG_D : 0; it < nk; it++) hg_mbar_arrive(full + 8 * (it % STAGES));
    }
  } else {
#if REGS
    hg_setmaxnreg_inc<HG_CREGS>();
#endif
    acc_t acc;
    zero_acc(acc);
    fence_acc(acc);
    int s = 0, ph = 0;
    for (int it = 0; it < nk; it++) {
      while (!hg_mbar_try(full + 8 * s, ph)) {}
      compute(acc, s);
      hg_wgmma_wait<WAITG>();
      fence_acc(acc);
      if (it >= WAITG) hg_mbar_arrive(empty + 8 * ((it - WAITG) % STAGES));
      if (++s == STAGES) s = 0, ph ^= 1;
    }
    hg_wgmma_wait<0>();
    fence_acc(acc);
    if (add) {  // the consumers only (named barrier 1): the producer is past its loop
      if (tid == 128)
        while (hg_flag_load(flags + t) == 0) hg_pause();
      hg_bar_consumers();
    }
    store(acc);
  }
#endif
#endif
  split_done();
#endif  // HG_TRAP
}

#else  // CUTUNE_REFERENCE

#ifdef HG_EMU
#define HG_F2(h) hg_emu_tof(h)
#else
__device__ __forceinline__ float hg_tof(hg_t h) {
#ifdef HG_F16
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
#else
  return __uint_as_float((unsigned)h << 16);
#endif
}
#define HG_F2(h) hg_tof(h)
#endif

// The reference: one element of C per thread, the dot product of the same 16-bit inputs in
// float64 in order k = 0..K-1 (every product of two 16-bit values is exact; only the float64
// sum rounds), so it is more accurate than any float32-accumulating variant. beta = 0 does not
// read C. Block {16, 16}, grid (ceil(N/16), ceil(M/16)).
struct __align__(64) hg_tmap_t { unsigned long long v[16]; };
extern "C" __global__ void hgemm_ref(float *C, const hg_t *A, const hg_t *B, int M, int N, int K, float alpha,
                                     float beta, int groupm, int splitk, int *flags, const __grid_constant__ hg_tmap_t tmA,
                                     const __grid_constant__ hg_tmap_t tmB) {
  (void)groupm, (void)splitk, (void)flags, (void)tmA, (void)tmB;  // the tuned kernel's arguments, all of them
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = blockIdx.y * blockDim.y + threadIdx.y;
  if (m >= M || n >= N) return;
  double s = 0.0;
  for (int k = 0; k < K; k++) s += (double)HG_F2(A[(long long)m * K + k]) * (double)HG_F2(B[(long long)k * N + n]);
  const long long i = (long long)m * N + n;
  C[i] = beta != 0.f ? (float)((double)alpha * s + (double)beta * (double)C[i]) : (float)((double)alpha * s);
}

#endif  // CUTUNE_REFERENCE
