// The reference of examples/kernel_tuner/vector_add.lua: c = a + b, one thread per element.
extern "C" __global__ void kt_vector_add_ref(float *c, const float *a, const float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
