// faulty: a vector copy whose MODE parameter makes it fail in each way the GPU worker must survive.
// The fixture of the fault-isolation test (tests/spaces/faulty_space.lua):
//   MODE 0  correct copy
//   MODE 1  wrong values (out = in + 1): must be recorded as a wrong result, never chosen
//   MODE 2  illegal address: a store near address 0, computed from memory so the compiler cannot
//           drop it (the worker's context is lost: the worker must be replaced)
//   MODE 3  hangs: every thread spins on a flag in global memory that is zero and never changes;
//           the volatile read stops the compiler from removing the loop (time limit, worker killed)
//   MODE 4  a correct kernel, but the space asks for a 2048-thread block: the launch itself fails
// BLOCK (the block size) is the second parameter, so each mode has two configurations.
// The flag buffer is filled with zeros by the space (fill = "zero").

#ifndef CUTUNE_REFERENCE

#ifndef MODE
#define MODE 0
#endif
#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void copy(float *out, const float *in, const int *flag, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
#if MODE == 3
  volatile const int *f = flag;
  while (f[0] == 0) {
  }
#endif
  if (i >= n) return;
#if MODE == 1
  out[i] = in[i] + 1.0f;
#elif MODE == 2
  // flag[0] is 0 at run time, so this writes to the first pages of the address space, which are
  // never mapped; the compiler cannot know the value, so the store stays.
  float *bad = (float *)(unsigned long long)(unsigned)flag[0];
  bad[i] = in[i];
#else
  out[i] = in[i];
#endif
}

#else  // CUTUNE_REFERENCE

extern "C" __global__ void copy_ref(float *out, const float *in, const int *flag, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

#endif
