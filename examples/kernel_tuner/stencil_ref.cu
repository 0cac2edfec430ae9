// The reference of examples/kernel_tuner/stencil.lua: the five-point average of Kernel Tuner's
// stencil.cu on its 4096 x 2048 domain, one thread per point, the border left as it is.
#define KT_W 4096
#define KT_H 2048
extern "C" __global__ void kt_stencil_ref(float *x_new, const float *x_old) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y > 0 && y < KT_H - 1 && x > 0 && x < KT_W - 1)
    x_new[y * KT_W + x] = (x_old[y * KT_W + x] + x_old[y * KT_W + x - 1] + x_old[y * KT_W + x + 1] +
                           x_old[(y + 1) * KT_W + x] + x_old[(y - 1) * KT_W + x]) / 5.0f;
}
