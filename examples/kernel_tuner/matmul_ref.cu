// The reference of examples/kernel_tuner/matmul.lua: C = A B for 4096 x 4096 row-major matrices
// (Kernel Tuner's matmul.cu fixes WIDTH at 4096), one thread per element, summed in double.
#define KT_WIDTH 4096
extern "C" __global__ void kt_matmul_ref(float *C, const float *A, const float *B) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= KT_WIDTH || y >= KT_WIDTH) return;
  double s = 0;
  for (int k = 0; k < KT_WIDTH; k++) s += (double)A[y * KT_WIDTH + k] * B[k * KT_WIDTH + x];
  C[y * KT_WIDTH + x] = (float)s;
}
