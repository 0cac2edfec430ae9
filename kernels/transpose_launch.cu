// transpose_launch: the dispatcher of the tuned transpose (see cutune_transpose.h). It asks the
// generated header which shipped configuration fits the current device and size, computes the
// grid the way lua/transpose_space.lua does (the header's launch contract: with ALIGN, the tiles
// along the rows of in are ceil((N + ALIGN - 1) / TILE) when N % ALIGN != 0), and launches the
// kernel cutune_add_tuned_kernels compiled for that configuration, with the runtime parameter
// ORDER as its fifth argument (a header whose ORDER was a -D: four). A header written before the
// space had ALIGN launches plain tiles.
#include <stdio.h>
#include <string.h>

#include "cutune_transpose.h"
#include "launch_device.h"
#include "transpose.h"

extern "C" const void *cutune_transpose_kernel(int config);

using cutune_launch::cdiv;
using cutune_launch::device_id;

#ifdef CUTUNE_TRANSPOSE_ALIGN
static int align(const cutune_transpose_entry *e) { return e->ALIGN; }
#else
static int align(const cutune_transpose_entry *) { return 0; }
#endif

// The space's problem is N (rows of in) x M (columns of in); the selector takes them sorted by
// name: M, N.
static cudaError_t pick(int rows, int cols, const cutune_transpose_entry **e) {
  const device_id *d;
  cudaError_t r = cutune_launch::current_device(&d);
  if (r != cudaSuccess) return r;
  static thread_local cutune_launch::pick_memo<cutune_transpose_entry, 2> memo;  // the header's rule once per size
  const long long key[2] = {cols, rows};
  *e = memo.get(d->ordinal, key, [&] { return cutune_transpose_select(d->name, d->major, d->minor, cols, rows); });
  return cudaSuccess;
}

extern "C" cudaError_t cutune_transpose(float *out, const float *in, int rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return rows == 0 || cols == 0 ? cudaSuccess : cudaErrorInvalidValue;
  const cutune_transpose_entry *e;
  cudaError_t r = pick(rows, cols, &e);
  if (r != cudaSuccess) return r;
  const void *k = cutune_transpose_kernel(e->config);
  if (!k) return cudaErrorInvalidDeviceFunction;
  int N = rows, M = cols;
  dim3 block(e->block[0], e->block[1], e->block[2]), grid;
  if (e->TILE == 0) grid = dim3((unsigned)cdiv(M, 32), (unsigned)cdiv(N, e->BLOCK_ROWS));
  else {
    const int a = align(e);  // the write-aligned tiles: one more row of tiles where rows of out are shifted
    const long long gy = a && N % a ? cdiv(N + a - 1, e->TILE) : cdiv(N, e->TILE);
    grid = dim3((unsigned)cdiv(M, e->TILE), (unsigned)cdiv(gy, e->TPB));
  }
#ifdef CUTUNE_TRANSPOSE_RUNTIME_ORDER  // ORDER is the kernel's argument (a runtime parameter of the space)
  int order = e->ORDER;
  void *args[] = {&out, &in, &N, &M, &order};
#else  // a header of a space whose ORDER was a -D
  void *args[] = {&out, &in, &N, &M};
#endif
  return cudaLaunchKernel(k, grid, block, args, e->shared_bytes, stream);
}

extern "C" cudaError_t cutune_transpose_describe(int rows, int cols, int *config, char *params, int params_len,
                                                 double *time_ms, long long *meas_rows, long long *meas_cols,
                                                 const char **source) {
  const cutune_transpose_entry *e;
  cudaError_t r = pick(rows, cols, &e);
  if (r != cudaSuccess) return r;
  if (config) *config = e->config;
  if (params && params_len > 0)
    snprintf(params, (size_t)params_len, "TILE=%d PAD=%d SWIZZLE=%d BLOCK_ROWS=%d VEC=%d UNROLL=%d LDG=%d ORDER=%d TPB=%d ALIGN=%d",
             e->TILE, e->PAD, e->SWIZZLE, e->BLOCK_ROWS, e->VEC, e->UNROLL, e->LDG, e->ORDER, e->TPB, align(e));
  if (time_ms) *time_ms = e->time_ms;
  if (meas_cols) *meas_cols = e->problem[0];
  if (meas_rows) *meas_rows = e->problem[1];
  if (source) *source = e->source;
  return cudaSuccess;
}

extern "C" cudaError_t cutune_transpose_why(int rows, int cols, char *buf, int len) {
  const device_id *d;
  cudaError_t r = cutune_launch::current_device(&d);
  if (r != cudaSuccess) return r;
  cutune_transpose_why(d->name, d->major, d->minor, cols, rows, buf, len);
  return cudaSuccess;
}
