// planted: faults one output check cannot see, for `cutune explain --sanitize`
// (tests/cli_gpu_sanitize.sh). Every variant swaps neighbouring elements through shared memory
// (out[i] = in[i ^ 1]) and, almost always, gives the right answer:
//   MODE 0  correct: store to shared, __syncthreads(), read the neighbour's element
//   MODE 1  a data race: the __syncthreads() is missing (racecheck flags it; within a warp the
//           answer usually comes out right anyway)
//   MODE 2  an out-of-bounds write: the grid's last thread also writes out[n], one element past
//           the end of the output (memcheck flags it; nothing faults: the allocation is padded)

#ifndef CUTUNE_REFERENCE

#ifndef MODE
#define MODE 0
#endif

extern "C" __global__ void swap_pairs(float *out, const float *in, int n) {
  __shared__ float s[256];
  const int t = threadIdx.x, i = blockIdx.x * 256 + t;
  s[t] = i < n ? in[i] : 0.0f;
#if MODE != 1
  __syncthreads();
#endif
  if (i < n) out[i] = s[t ^ 1];
#if MODE == 2
  if (i == n - 1) out[n] = s[t];
#endif
}

#else

extern "C" __global__ void swap_pairs_ref(float *out, const float *in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i ^ 1];
}

#endif
