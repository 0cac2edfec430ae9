// Fixture of tests/cli_fake_typed.sh: a kernel whose element type is a parameter (-Dfloat_type=half),
// as Kernel Tuner's accuracy.py tunes one with TunablePrecision. A C++ kernel: the fake driver reads
// the type from its mangled name and adds in it.
#include <cuda_fp16.h>
using half = __half;

__global__ void add_typed(int n, float_type *left, float_type *right, float_type *output) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) output[i] = left[i] + right[i];
}
