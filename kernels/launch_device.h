// launch_device.h: what the tuned launchers (kernels/*_launch.cu) need to know about the current
// CUDA device to pick a header entry (name, compute capability) and to launch it (the opt-in
// shared memory per block, the multiprocessor count), read once per device and kept; and the
// grid arithmetic they share; and the memo of the header's choice per size.
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

// The last few entries the generated header chose on this thread, by device and sizes. The
// header's rule runs over every tuned shape and kernel (about 1-2 us for the 45 shapes and 14
// kernels of the SGEMM header), and a launch of a 10-60 us kernel pays it before the launch
// reaches the GPU; its answer depends only on the device and the sizes, so a size called again
// is a lookup. Per thread (thread_local): no lock. D sizes per key, SLOTS keys, oldest replaced.
template <class Entry, int D, int SLOTS = 8>
struct pick_memo {
  struct slot {
    int dev = -1;
    long long key[D];
    const Entry *e = nullptr;
  };
  slot s[SLOTS];
  int next = 0;
  const Entry *find(int dev, const long long (&key)[D]) const {
    for (int i = 0; i < SLOTS; i++) {
      if (s[i].dev != dev) continue;
      int j = 0;
      while (j < D && s[i].key[j] == key[j]) j++;
      if (j == D) return s[i].e;
    }
    return nullptr;
  }
  void put(int dev, const long long (&key)[D], const Entry *e) {
    slot &t = s[next];
    next = (next + 1) % SLOTS;
    t.dev = dev, t.e = e;
    for (int j = 0; j < D; j++) t.key[j] = key[j];
  }
  // The entry for (dev, key): the one kept, else select()'s, kept.
  template <class Select>
  const Entry *get(int dev, const long long (&key)[D], Select select) {
    const Entry *e = find(dev, key);
    if (!e) put(dev, key, e = select());
    return e;
  }
};

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
