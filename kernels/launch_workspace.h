// launch_workspace.h: a device buffer that a tuned launcher's kernels share between calls (the
// SGEMM's stream-K partial tiles and counters), one per device, allocated the first time a call
// needs it and grown when a call needs more, with its head (the counters) zeroed when it is
// allocated. The kernels leave the counters at zero after every complete launch, so the buffer
// is reused as it is. Launches that use it must not overlap: acquire() makes the caller's stream
// wait for the previous user's launch when that was on another stream, and release() records the
// caller's launch; on one stream they are ordered anyway. Thread-safe (one mutex per device).
// Header-only, for nvcc; each launcher's translation unit keeps its own buffers (64 devices).
//
// A first call inside a CUDA graph capture fails (cudaMalloc is not captured): make one call
// outside the capture first, with the largest size the graph will use.
#ifndef CUTUNE_LAUNCH_WORKSPACE_H
#define CUTUNE_LAUNCH_WORKSPACE_H

#include <mutex>

#include <cuda_runtime.h>

namespace cutune_launch {

class workspace {
 public:
  // A buffer of at least `bytes` on device `dev` (the current one) whose first `zero_bytes`
  // are zero before the first launch that uses it, ordered after the previous launch that used
  // it. The lock is held until release(), which must follow the launch (or its failure).
  cudaError_t acquire(int dev, size_t bytes, size_t zero_bytes, cudaStream_t stream, void **out) {
    if (dev < 0 || dev >= 64) return cudaErrorInvalidDevice;
    slot &s = slots_[dev];
    s.mutex.lock();
    cudaError_t r = cudaSuccess;
    if (s.bytes < bytes) {
      // grow: wait for the last launch that uses the old buffer, then replace it
      if (s.event && (r = cudaEventSynchronize(s.event)) != cudaSuccess) return fail(s, r);
      if (s.ptr && (r = cudaFree(s.ptr)) != cudaSuccess) return fail(s, r);
      s.ptr = nullptr, s.bytes = 0;
      const size_t want = bytes < (size_t)1 << 20 ? (size_t)1 << 20 : bytes;  // at least 1 MiB: fewer regrowths
      if ((r = cudaMalloc(&s.ptr, want)) != cudaSuccess) return fail(s, r);
      s.bytes = want;
      s.zeroed = 0;
    }
    if (!s.event && (r = cudaEventCreateWithFlags(&s.event, cudaEventDisableTiming)) != cudaSuccess) return fail(s, r);
    if (s.used && s.stream != stream && (r = cudaStreamWaitEvent(stream, s.event, 0)) != cudaSuccess) return fail(s, r);
    if (s.zeroed < zero_bytes) {  // a fresh buffer (or a larger head than before): zero its head
      if ((r = cudaMemsetAsync(s.ptr, 0, zero_bytes, stream)) != cudaSuccess) return fail(s, r);
      s.zeroed = zero_bytes;
    }
    *out = s.ptr;
    return cudaSuccess;
  }
  // After the launch on `stream` (launched: whether it was queued).
  cudaError_t release(int dev, cudaStream_t stream, bool launched) {
    slot &s = slots_[dev];
    cudaError_t r = cudaSuccess;
    if (launched) {
      r = cudaEventRecord(s.event, stream);
      s.stream = stream, s.used = r == cudaSuccess;
    }
    s.mutex.unlock();
    return r;
  }

 private:
  struct slot {
    std::mutex mutex;
    void *ptr = nullptr;
    size_t bytes = 0, zeroed = 0;
    cudaEvent_t event = nullptr;  // recorded after the last launch that used the buffer
    cudaStream_t stream = nullptr;
    bool used = false;
  };
  static cudaError_t fail(slot &s, cudaError_t r) {
    s.mutex.unlock();
    return r;
  }
  slot slots_[64];
};

}  // namespace cutune_launch

#endif
