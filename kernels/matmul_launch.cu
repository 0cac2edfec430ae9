// matmul_launch: the dispatcher of the tuned SGEMM (see cutune_matmul.h). It asks the generated
// header which shipped configuration fits the current device and size, computes the grid the
// way lua/matmul_space.lua does (the header's launch contract: block and dynamic shared bytes
// come with the entry, the grid is computed from the entry and the problem, in one dimension),
// raises the kernel's dynamic shared memory limit where the entry needs more than the default
// 48 KiB, and launches the kernel cutune_add_tuned_kernels compiled for that configuration, with
// the entry's GROUPM as its runtime argument. A split-K entry (SPLITK > 1) is launched with
// SPLITK times the blocks: its kernel carries its cluster shape (__cluster_dims__), so a plain
// launch runs the slices of a tile as one cluster on sm_90 and later, and on an older GPU the
// kernel built for it computes each tile in its first block (the others return at once). A
// stream-K entry (STREAMK = k > 0) gets a persistent grid of about k blocks per multiprocessor of
// this device (SPLITK * min(k * SMs / SPLITK, the clusters it holds at once, k tiles of all
// tiles)) and the workspace its tiles
// cut between clusters go through: a buffer per device (kernels/launch_workspace.h), allocated
// by the first such call and grown when a call needs more (cudaMalloc, its counters zeroed on
// the stream; the kernels leave them at zero), and calls on different streams that use it run
// one after the other (the stream waits for the previous user's launch).
#include <stdio.h>

#include "cutune_matmul.h"
#include "launch_device.h"
#include "launch_workspace.h"
#include "matmul.h"

extern "C" const void *cutune_matmul_kernel(int config);

// The parameters this file prints and launches with; a space that gains one must update it.
// A header written before the space had SPLITK (14 parameters) is launched unsplit, one before it
// had STREAMK (15) with one tile per cluster.
#ifdef CUTUNE_MATMUL_SPLITK
static int splitk(const cutune_matmul_entry *e) { return e->SPLITK; }
#else
static int splitk(const cutune_matmul_entry *) { return 1; }
#endif
#ifdef CUTUNE_MATMUL_STREAMK
static int streamk(const cutune_matmul_entry *e) { return e->STREAMK; }
#else
static int streamk(const cutune_matmul_entry *) { return 0; }
#endif
#if defined(CUTUNE_MATMUL_STREAMK) && !defined(CUTUNE_MATMUL_SPLITK)
#error "a matmul header with STREAMK but not SPLITK: not a header of lua/matmul_space.lua"
#endif
#if defined(CUTUNE_MATMUL_STREAMK)
static_assert(CUTUNE_MATMUL_NPARAMS == 16, "lua/matmul_space.lua's parameters changed: update matmul_launch.cu");
#elif defined(CUTUNE_MATMUL_SPLITK)
static_assert(CUTUNE_MATMUL_NPARAMS == 15, "lua/matmul_space.lua's parameters changed: update matmul_launch.cu");
#else
static_assert(CUTUNE_MATMUL_NPARAMS == 14, "lua/matmul_space.lua's parameters changed: update matmul_launch.cu");
#endif

using cutune_launch::device_id;

// The space's problem variables sorted by name are K, M, N: the selector takes them so.
static cudaError_t pick(int M, int N, int K, const device_id **d, const cutune_matmul_entry **e) {
  cudaError_t r = cutune_launch::current_device(d);
  if (r != cudaSuccess) return r;
  static thread_local cutune_launch::pick_memo<cutune_matmul_entry, 3> memo;  // the header's rule once per size
  const long long key[3] = {K, M, N};
  *e = memo.get((*d)->ordinal, key, [&] { return cutune_matmul_select((*d)->name, (*d)->major, (*d)->minor, K, M, N); });
  return cudaSuccess;
}

// cudaFuncSetAttribute once per device and configuration (it is per device, like the limit).
static cudaError_t allow_shared(const device_id *d, const void *k, const cutune_matmul_entry *e) {
  static unsigned char done[64][CUTUNE_MATMUL_NCONFIGS];
  if (e->shared_bytes <= 48 * 1024 || done[d->ordinal][e->config]) return cudaSuccess;
  if (e->shared_bytes > d->smem_optin) return cudaErrorInvalidConfiguration;  // this GPU has less
  cudaError_t r = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)e->shared_bytes);
  if (r == cudaSuccess) done[d->ordinal][e->config] = 1;
  return r;
}

// The clusters of a stream-K entry that this device holds at once (its persistent grid must not
// be more: the rest would run in a second round): cudaOccupancyMaxActiveClusters for clusters
// (sm_90 and later: SMs of one GPC per cluster, so fewer than SMs / SPLITK where a GPC's SMs are
// not a multiple of it), else the blocks per SM times the SMs; once per device and configuration.
// 0 where the query fails (the caller keeps k * SMs / SPLITK).
static long long resident_clusters(const device_id *d, const void *k, const cutune_matmul_entry *e, int S) {
  static long long known[64][CUTUNE_MATMUL_NCONFIGS];
  long long &c = known[d->ordinal][e->config];
  if (c) return c > 0 ? c : 0;
  int n = 0;
  cudaError_t r;
  if (S > 1 && d->major >= 9) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(S * d->sms)), cfg.blockDim = dim3(e->block[0], e->block[1], e->block[2]);
    cfg.dynamicSmemBytes = e->shared_bytes;
    r = cudaOccupancyMaxActiveClusters(&n, k, &cfg);
  } else {
    r = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k, (int)(e->block[0] * e->block[1] * e->block[2]), e->shared_bytes);
    n = S > 1 ? n * d->sms / S : n * d->sms;
  }
  if (r != cudaSuccess) (void)cudaGetLastError();  // not sticky: clear it, keep the formula
  c = r == cudaSuccess && n > 0 ? n : -1;
  return c > 0 ? c : 0;
}

extern "C" cudaError_t cutune_sgemm(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                                    float *C, cudaStream_t stream) {
  if (M < 0 || N < 0 || K < 0) return cudaErrorInvalidValue;
  if (M == 0 || N == 0) return cudaSuccess;
  if (!cutune_launch::aligned16(C) || (K > 0 && (!cutune_launch::aligned16(A) || !cutune_launch::aligned16(B))))
    return cudaErrorInvalidValue;
  const device_id *d;
  const cutune_matmul_entry *e;
  cudaError_t r = pick(M, N, K, &d, &e);
  if (r != cudaSuccess) return r;
  const void *k = cutune_matmul_kernel(e->config);
  if (!k) return cudaErrorInvalidDeviceFunction;
  if ((r = allow_shared(d, k, e)) != cudaSuccess) return r;
  dim3 block(e->block[0], e->block[1], e->block[2]), grid;
  const int S = splitk(e);
  const long long tiles = cutune_launch::cdiv(M, e->BM) * cutune_launch::cdiv(N, e->BN);
  long long blocks = tiles * S;
  if (streamk(e) > 0) {  // the persistent grid: no more clusters than k tiles (K = 0: one per tile)
    const long long ktiles = K > e->BK ? cutune_launch::cdiv(K, e->BK) : 1, res = resident_clusters(d, k, e, S);
    long long per = (long long)streamk(e) * d->sms / S;
    if (res > 0 && res < per) per = res;  // no more than the device holds at once
    blocks = S * (per < tiles * ktiles ? per : tiles * ktiles);
  }
  r = cutune_launch::grid_1d(blocks, &grid);
  if (r != cudaSuccess) return r;
  int groupm = e->GROUPM; // a runtime parameter: the kernel's argument (ignored where a -D fixed it)
  float *ws = nullptr;
  int ws_floats = 0;
  if (streamk(e) > 0) {
    // templates/matmul.cu's MM_WS_FLOATS: 4096 counters (the same head for every entry and
    // grid, so that all share one buffer), then two partial tiles per cluster; more than an int
    // can count, or more blocks than counters: no workspace (whole tiles)
    const long long flags = 4096, need = flags + 2 * (blocks / S) * e->BM * e->BN;
    if (need <= 2147483647LL && blocks <= flags) {
      static cutune_launch::workspace pool;
      void *p;
      if ((r = pool.acquire(d->ordinal, (size_t)need * 4, (size_t)flags * 4, stream, &p)) != cudaSuccess) return r;
      ws = static_cast<float *>(p), ws_floats = (int)need;
      void *args[] = {&C, &A, &B, &M, &N, &K, &alpha, &beta, &groupm, &ws, &ws_floats};
      r = cudaLaunchKernel(k, grid, block, args, e->shared_bytes, stream);
      const cudaError_t rr = pool.release(d->ordinal, stream, r == cudaSuccess);
      return r != cudaSuccess ? r : rr;
    }
  }
  void *args[] = {&C, &A, &B, &M, &N, &K, &alpha, &beta, &groupm, &ws, &ws_floats};
  return cudaLaunchKernel(k, grid, block, args, e->shared_bytes, stream);
}

extern "C" cudaError_t cutune_sgemm_describe(int M, int N, int K, int *config, char *params, int params_len,
                                             double *time_ms, long long measured[3], const char **source) {
  const device_id *d;
  const cutune_matmul_entry *e;
  cudaError_t r = pick(M, N, K, &d, &e);
  if (r != cudaSuccess) return r;
  if (config) *config = e->config;
  if (params && params_len > 0)
    snprintf(params, (size_t)params_len,
             "BM=%d BN=%d BK=%d WM=%d WN=%d TM=%d TN=%d STAGES=%d SDB=%d PAD=%d REGDB=%d UNROLL=%d GROUPM=%d HOIST=%d SPLITK=%d "
             "STREAMK=%d",
             e->BM, e->BN, e->BK, e->WM, e->WN, e->TM, e->TN, e->STAGES, e->SDB, e->PAD, e->REGDB, e->UNROLL,
             e->GROUPM, e->HOIST, splitk(e), streamk(e));
  if (time_ms) *time_ms = e->time_ms;
  if (measured) measured[0] = e->problem[1], measured[1] = e->problem[2], measured[2] = e->problem[0];
  if (source) *source = e->source;
  return cudaSuccess;
}

extern "C" cudaError_t cutune_sgemm_why(int M, int N, int K, char *buf, int len) {
  const device_id *d;
  cudaError_t r = cutune_launch::current_device(&d);
  if (r != cudaSuccess) return r;
  cutune_matmul_why(d->name, d->major, d->minor, K, M, N, buf, len);
  return cudaSuccess;
}
