// vecadd_launch: the dispatcher of the tuned vector add (see cutune_vecadd.h). It asks the
// generated header which shipped configuration fits the current device and n, computes the grid
// the way lua/vecadd_space.lua does (chunks = ceil(ceil(n / VEC) / (BLOCK * EPT)) blocks, at most
// GRID of them where GRID > 0: the grid-stride loop covers the rest), and launches the kernel
// cutune_add_tuned_kernels compiled for that configuration.
#include <stdio.h>

#include "cutune_vecadd.h"
#include "launch_device.h"
#include "vecadd.h"

extern "C" const void *cutune_vecadd_kernel(int config);

// The parameters this file prints and launches with; a space that gains one must update it.
static_assert(CUTUNE_VECADD_NPARAMS == 5, "lua/vecadd_space.lua's parameters changed: update vecadd_launch.cu");

using cutune_launch::cdiv;
using cutune_launch::device_id;

static cudaError_t pick(long long n, const cutune_vecadd_entry **e) {
  const device_id *d;
  cudaError_t r = cutune_launch::current_device(&d);
  if (r != cudaSuccess) return r;
  static thread_local cutune_launch::pick_memo<cutune_vecadd_entry, 1> memo;  // the header's rule once per size
  const long long key[1] = {n};
  *e = memo.get(d->ordinal, key, [&] { return cutune_vecadd_select(d->name, d->major, d->minor, n); });
  return cudaSuccess;
}

extern "C" cudaError_t cutune_vecadd(float *c, const float *a, const float *b, long long n, cudaStream_t stream) {
  if (n <= 0) return n == 0 ? cudaSuccess : cudaErrorInvalidValue;
  if (!cutune_launch::aligned16(c) || !cutune_launch::aligned16(a) || !cutune_launch::aligned16(b))
    return cudaErrorInvalidValue;
  const cutune_vecadd_entry *e;
  cudaError_t r = pick(n, &e);
  if (r != cudaSuccess) return r;
  const void *k = cutune_vecadd_kernel(e->config);
  if (!k) return cudaErrorInvalidDeviceFunction;
  long long chunks = cdiv(cdiv(n, e->VEC), (long long)e->BLOCK * e->EPT);
  if (e->GRID > 0 && e->GRID < chunks) chunks = e->GRID;
  dim3 block(e->block[0], e->block[1], e->block[2]), grid;
  if ((r = cutune_launch::grid_1d(chunks, &grid)) != cudaSuccess) return r;
  void *args[] = {&c, &a, &b, &n};
  return cudaLaunchKernel(k, grid, block, args, e->shared_bytes, stream);
}

extern "C" cudaError_t cutune_vecadd_describe(long long n, int *config, char *params, int params_len, double *time_ms,
                                              long long *measured_n, const char **source) {
  const cutune_vecadd_entry *e;
  cudaError_t r = pick(n, &e);
  if (r != cudaSuccess) return r;
  if (config) *config = e->config;
  if (params && params_len > 0)
    snprintf(params, (size_t)params_len, "BLOCK=%d VEC=%d EPT=%d GRID=%d CS=%d", e->BLOCK, e->VEC, e->EPT, e->GRID,
             e->CS);
  if (time_ms) *time_ms = e->time_ms;
  if (measured_n) *measured_n = e->problem[0];
  if (source) *source = e->source;
  return cudaSuccess;
}

extern "C" cudaError_t cutune_vecadd_why(long long n, char *buf, int len) {
  const cutune_launch::device_id *d;
  cudaError_t r = cutune_launch::current_device(&d);
  if (r != cudaSuccess) return r;
  cutune_vecadd_why(d->name, d->major, d->minor, n, buf, len);
  return cudaSuccess;
}
