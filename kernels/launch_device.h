// launch_device.h: what the tuned launchers (kernels/*_launch.cu) need to know about the current
// CUDA device to pick a header entry (name, compute capability) and to launch it (the opt-in
// shared memory per block, the multiprocessor count), read once per device and kept; and the
// grid arithmetic they share.
// Header-only, for nvcc; each launcher's translation unit keeps its own table (64 devices).
#ifndef CUTUNE_LAUNCH_DEVICE_H
#define CUTUNE_LAUNCH_DEVICE_H

#include <stdio.h>

#include <cuda_runtime.h>

namespace cutune_launch {

struct device_id {
  int known;
  int ordinal;
  char name[256];
  int major, minor;
  size_t smem_optin;  // cudaDeviceProp.sharedMemPerBlockOptin
  int sms;            // cudaDeviceProp.multiProcessorCount
};

// The current device's identity (cudaGetDeviceProperties is slow: once per device).
static inline cudaError_t current_device(const device_id **out) {
  static device_id devices[64];
  int dev = 0;
  cudaError_t r = cudaGetDevice(&dev);
  if (r != cudaSuccess) return r;
  if (dev < 0 || dev >= 64) return cudaErrorInvalidDevice;
  device_id *d = &devices[dev];
  if (!d->known) {
    cudaDeviceProp p;
    if ((r = cudaGetDeviceProperties(&p, dev)) != cudaSuccess) return r;
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->ordinal = dev, d->major = p.major, d->minor = p.minor, d->smem_optin = p.sharedMemPerBlockOptin;
    d->sms = p.multiProcessorCount;
    d->known = 1;
  }
  *out = d;
  return cudaSuccess;
}

static inline long long cdiv(long long a, long long b) { return (a + b - 1) / b; }

// A one-dimensional grid of `blocks` blocks, or an error where CUDA cannot launch that many.
static inline cudaError_t grid_1d(long long blocks, dim3 *grid) {
  if (blocks < 1 || blocks > 2147483647LL) return cudaErrorInvalidConfiguration;
  *grid = dim3((unsigned)blocks);
  return cudaSuccess;
}

// Buffers of the tuned kernels move in 16-byte pieces: their base must be 16-byte aligned.
static inline bool aligned16(const void *p) { return ((unsigned long long)(size_t)p & 15u) == 0; }

}  // namespace cutune_launch

#endif
