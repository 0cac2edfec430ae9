// hgemm_launch: the dispatcher of the tuned BF16 GEMM (see cutune_hgemm.h). It asks the generated
// header which shipped configuration fits the current device and size, checks that the device
// and the build can run it (a wgmma configuration needs a 9.0 GPU and the library's sm_90a code:
// else the built-in mma.sync configuration below), computes the grid the way lua/hgemm.lua
// does (ceil(M/BM) * ceil(N/BN) * SPLITK blocks in one dimension), raises the kernel's dynamic
// shared memory limit where the entry needs more than 48 KiB, and launches the kernel
// cutune_add_tuned_kernels compiled for that configuration with the runtime parameters GROUPM
// and SPLITK as arguments (SPLITK chosen for the size away from the measured one), and the
// per-stream split-K flags.
#include <stdio.h>
#include <string.h>

#include <mutex>

// The built-in fallback, compiled into this unit for every architecture of the build: a
// mma.sync configuration (any GPU from sm_80 on). Its parameters are undefined again before the
// header, whose entries have fields of the same names.
#define WG 0
#define BM 128
#define BN 128
#define BK 32
#define WM 64
#define WN 64
#define STAGES 4
#define SWZ 64
#define hgemm cutune_hgemm_fallback
#include "../templates/hgemm.cu"
#undef hgemm
static const int FB_BM = BM, FB_BN = BN, FB_BK = BK, FB_THREADS = HG_THREADS, FB_SMEM = HG_SMEM;
#undef WG
#undef BM
#undef BN
#undef BK
#undef WM
#undef WN
#undef STAGES
#undef SWZ
#undef WS
#undef WAITG
#undef REGS
#undef TMA

#include "cutune_hgemm.h"
#include "hgemm.h"
#include "hgemm_tmap.h"
#include "launch_device.h"

extern "C" const void *cutune_hgemm_kernel(int config);

// The parameters this file prints and launches with; a space that gains one must update it.
static_assert(CUTUNE_HGEMM_NPARAMS == 14, "lua/hgemm.lua's parameters changed: update hgemm_launch.cu");

using cutune_launch::device_id;

enum { MAX_DEV = 64, MAX_STREAMS = 32, MAX_TILES = 65536, FALLBACK = -1 };

// What one call runs: a shipped entry or the fallback, its kernel, tile and launch figures.
struct plan {
  const cutune_hgemm_entry *e;  // NULL: the fallback
  const void *kernel;
  int bm, bn, bk, threads, smem, groupm, split, config;
};

// The space's problem variables sorted by name are K, M, N: the selector takes them so.
static cudaError_t pick(int M, int N, int K, const device_id **d, const cutune_hgemm_entry **e) {
  cudaError_t r = cutune_launch::current_device(d);
  if (r != cudaSuccess) return r;
  static thread_local cutune_launch::pick_memo<cutune_hgemm_entry, 3> memo;  // the header's rule once per size
  const long long key[3] = {K, M, N};
  *e = memo.get((*d)->ordinal, key, [&] { return cutune_hgemm_select((*d)->name, (*d)->major, (*d)->minor, K, M, N); });
  return cudaSuccess;
}

// A WG=1 entry runs where the GPU is a 9.0 one and its kernel's code is sm_90a's own (a build
// without 90a holds only a trap for it, or PTX of an older target the driver would JIT into one).
static bool wgmma_ok(const device_id *d, const void *k, int config) {
  static signed char known[MAX_DEV][CUTUNE_HGEMM_NCONFIGS];  // 0 unknown, 1 yes, -1 no
  if (d->major != 9 || d->minor != 0) return false;
  signed char &v = known[d->ordinal][config];
  if (!v) {
    cudaFuncAttributes a;
    v = cudaFuncGetAttributes(&a, k) == cudaSuccess && a.ptxVersion == 90 && a.binaryVersion == 90 ? 1 : -1;
  }
  return v > 0;
}

// The K split at a size the entry was not measured at: 1 where C has a wave of tiles, else the
// power of two (<= 16) that brings the blocks to at most two per multiprocessor, each split
// keeping 4 k tiles or more.
static int choose_split(int M, int N, int K, int bm, int bn, int bk, int sms) {
  const long long tiles = cutune_launch::cdiv(M, bm) * cutune_launch::cdiv(N, bn), kt = cutune_launch::cdiv(K, bk);
  int s = 1;
  if (tiles >= sms) return 1;
  while (s < 16 && tiles * 2 * s <= 2LL * sms && kt / (2 * s) >= 4) s *= 2;
  return s;
}

static cudaError_t make_plan(int M, int N, int K, const device_id **dout, plan *p) {
  const device_id *d;
  const cutune_hgemm_entry *e;
  cudaError_t r = pick(M, N, K, &d, &e);
  if (r != cudaSuccess) return r;
  *dout = d;
  if (d->major < 8) return cudaErrorNotSupported;  // no bfloat16 tensor cores
  const void *k = cutune_hgemm_kernel(e->config);
  if (!k) return cudaErrorInvalidDeviceFunction;
  if (e->WG == 1 && !wgmma_ok(d, k, e->config)) {
    *p = plan{NULL, (const void *)&cutune_hgemm_fallback, FB_BM, FB_BN, FB_BK, FB_THREADS, FB_SMEM, e->GROUPM, 1, FALLBACK};
  } else {
    *p = plan{e, k, e->BM, e->BN, e->BK, (int)(e->block[0] * e->block[1] * e->block[2]), (int)e->shared_bytes,
              e->GROUPM, 1, e->config};
  }
  const bool measured = p->e && e->problem[0] == K && e->problem[1] == M && e->problem[2] == N;
  p->split = K == 0 ? 1 : measured ? e->SPLITK : choose_split(M, N, K, p->bm, p->bn, p->bk, d->sms);
  return cudaSuccess;
}

// cudaFuncSetAttribute once per device and kernel (it is per device, like the limit).
static cudaError_t allow_shared(const device_id *d, const plan *p) {
  static unsigned char done[MAX_DEV][CUTUNE_HGEMM_NCONFIGS + 1];
  unsigned char &v = done[d->ordinal][p->config + 1];
  if (p->smem <= 48 * 1024 || v) return cudaSuccess;
  if ((size_t)p->smem > d->smem_optin) return cudaErrorInvalidConfiguration;  // this GPU has less
  cudaError_t r = cudaFuncSetAttribute(p->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, p->smem);
  if (r == cudaSuccess) v = 1;
  return r;
}

// The split-K flags of (device, stream): MAX_TILES ints, zero at the end of every launch (the
// kernel's last split lowers what the first raised), cleared once when made, in the stream's
// order. NULL when the table of this device is full or the allocation fails: no split-K then.
static int *stream_flags(const device_id *d, cudaStream_t s) {
  static std::mutex mu;
  static struct { cudaStream_t s; int *flags; int used; } tab[MAX_DEV][MAX_STREAMS];
  std::lock_guard<std::mutex> lock(mu);
  for (int i = 0; i < MAX_STREAMS; i++)
    if (tab[d->ordinal][i].used && tab[d->ordinal][i].s == s) return tab[d->ordinal][i].flags;
  for (int i = 0; i < MAX_STREAMS; i++) {
    if (tab[d->ordinal][i].used) continue;
    int *f = NULL;
    if (cudaMalloc(&f, MAX_TILES * sizeof(int)) != cudaSuccess) return NULL;
    if (cudaMemsetAsync(f, 0, MAX_TILES * sizeof(int), s) != cudaSuccess) {
      cudaFree(f);
      return NULL;
    }
    tab[d->ordinal][i].s = s, tab[d->ordinal][i].flags = f, tab[d->ordinal][i].used = 1;
    return f;
  }
  return NULL;
}

extern "C" cudaError_t cutune_hgemm(int M, int N, int K, float alpha, const __nv_bfloat16 *A, const __nv_bfloat16 *B,
                                    float beta, float *C, cudaStream_t stream) {
  if (M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
  if (M == 0 || N == 0) return cudaSuccess;
  if (!cutune_launch::aligned16(C) || (K > 0 && (!cutune_launch::aligned16(A) || !cutune_launch::aligned16(B))))
    return cudaErrorInvalidValue;
  const device_id *d;
  plan p;
  cudaError_t r = make_plan(M, N, K, &d, &p);
  if (r != cudaSuccess) return r;
  if ((r = allow_shared(d, &p)) != cudaSuccess) return r;
  const long long tiles = cutune_launch::cdiv(M, p.bm) * cutune_launch::cdiv(N, p.bn);
  int *flags = NULL;
  if (p.split > 1 && (tiles > MAX_TILES || !(flags = stream_flags(d, stream)))) p.split = 1;
  dim3 block(p.threads), grid;
  if ((r = cutune_launch::grid_1d(tiles * p.split, &grid)) != cudaSuccess) return r;
  int groupm = p.groupm, splitk = p.split;
  hgemm_maps maps;  // TMA=1 entries read A and B through these (zero: their cp.async path)
  if (p.e && p.e->TMA) hgemm_encode_maps(A, B, M, N, K, p.e->BM, p.e->BK, p.e->SWZ, &maps);
  else memset(&maps, 0, sizeof maps);
  void *args[] = {&C, &A, &B, &M, &N, &K, &alpha, &beta, &groupm, &splitk, &flags, &maps.a, &maps.b};
  return cudaLaunchKernel(p.kernel, grid, block, args, (size_t)p.smem, stream);
}

extern "C" cudaError_t cutune_hgemm_describe(int M, int N, int K, int *config, char *params, int params_len,
                                             double *time_ms, long long measured[3], const char **source) {
  const device_id *d;
  plan p;
  cudaError_t r = make_plan(M, N, K, &d, &p);
  if (r != cudaSuccess) return r;
  const cutune_hgemm_entry *e = p.e;
  if (config) *config = p.config;
  if (params && params_len > 0) {
    if (e)
      snprintf(params, (size_t)params_len,
               "WG=%d BM=%d BN=%d BK=%d WM=%d WN=%d STAGES=%d SWZ=%d WS=%d WAITG=%d REGS=%d TMA=%d GROUPM=%d SPLITK=%d",
               e->WG, e->BM, e->BN, e->BK, e->WM, e->WN, e->STAGES, e->SWZ, e->WS, e->WAITG, e->REGS, e->TMA, p.groupm,
               p.split);
    else
      snprintf(params, (size_t)params_len, "WG=0 BM=%d BN=%d BK=%d WM=64 WN=64 STAGES=4 SWZ=64 GROUPM=%d SPLITK=%d "
               "(the built-in fallback)", FB_BM, FB_BN, FB_BK, p.groupm, p.split);
  }
  if (time_ms) *time_ms = e ? e->time_ms : -1;
  if (measured && e) measured[0] = e->problem[1], measured[1] = e->problem[2], measured[2] = e->problem[0];
  if (measured && !e) measured[0] = measured[1] = measured[2] = 0;
  if (source) *source = e ? e->source : "built-in fallback (kernels/hgemm_launch.cu)";
  return cudaSuccess;
}

// The header's cutune_hgemm_why for the shipped choice; the fallback and the K split added.
extern "C" cudaError_t cutune_hgemm_why_size(int M, int N, int K, char *buf, int len) {
  const device_id *d;
  plan p;
  cudaError_t r = make_plan(M, N, K, &d, &p);
  if (r != cudaSuccess) return r;
  if (!buf || len <= 0) return cudaSuccess;
  cutune_hgemm_why(d->name, d->major, d->minor, K, M, N, buf, len);
  size_t o = strlen(buf);
  if (!p.e && o + 1 < (size_t)len)
    o += (size_t)snprintf(buf + o, (size_t)len - o, "; it needs sm_90a code that this GPU or build lacks: the built-in "
                          "mma.sync configuration runs instead");
  if (o + 1 < (size_t)len) snprintf(buf + o, (size_t)len - o, "; SPLITK=%d for this size", p.split);
  return cudaSuccess;
}
