// jacobi2d.cu: one Jacobi sweep of a 5-point stencil on an nx x ny float grid (row-major, x
// fastest), tuned by examples/kernels/jacobi2d.lua:
//   out[y][x] = 0.25 * ((in[y-1][x] + in[y+1][x]) + (in[y][x-1] + in[y][x+1]))   inside,
//   out[y][x] = in[y][x]                                                          on the border.
//
// jacobi5<kBX, kBY, kCY>: a block of kBX x kBY threads computes a kBX x (kBY * kCY) tile; each
// thread does kCY cells, kBY rows apart (so each warp's row of cells stays contiguous). The block
// first loads the tile and its one-cell halo, (kBY * kCY + 2) x (kBX + 2) floats, into shared
// memory (the threads walk it linearly: coalesced row segments), then reads all five points from
// there. Cells outside the grid load as 0 and are never written.
//
// jacobi5_ref (compiled with -DCUTUNE_REFERENCE=1): one thread per cell, straight from global memory.

#ifndef CUTUNE_REFERENCE

template <int kBX, int kBY, int kCY>
__global__ void __launch_bounds__(kBX * kBY)
jacobi5(float *__restrict__ out, const float *__restrict__ in, int nx, int ny) {
  constexpr int kTX = kBX + 2, kTY = kBY * kCY + 2;
  __shared__ float tile[kTY][kTX];

  const int x0 = blockIdx.x * kBX, y0 = blockIdx.y * (kBY * kCY);
  const int tid = threadIdx.y * kBX + threadIdx.x;
  for (int i = tid; i < kTX * kTY; i += kBX * kBY) {
    const int ty = i / kTX, tx = i % kTX;
    const int gx = x0 - 1 + tx, gy = y0 - 1 + ty;
    tile[ty][tx] = (gx >= 0 && gx < nx && gy >= 0 && gy < ny) ? in[static_cast<long long>(gy) * nx + gx] : 0.0f;
  }
  __syncthreads();

  const int tx = threadIdx.x + 1;
  const int gx = x0 + threadIdx.x;
  if (gx >= nx) return;
#pragma unroll
  for (int k = 0; k < kCY; ++k) {
    const int ty = threadIdx.y + k * kBY + 1;
    const int gy = y0 + ty - 1;
    if (gy >= ny) break;
    const float c = tile[ty][tx];
    const bool border = gx == 0 || gx == nx - 1 || gy == 0 || gy == ny - 1;
    out[static_cast<long long>(gy) * nx + gx] =
        border ? c : 0.25f * ((tile[ty - 1][tx] + tile[ty + 1][tx]) + (tile[ty][tx - 1] + tile[ty][tx + 1]));
  }
}

#else  // CUTUNE_REFERENCE

__global__ void jacobi5_ref(float *out, const float *in, int nx, int ny) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const long long i = static_cast<long long>(y) * nx + x;
  if (x == 0 || x == nx - 1 || y == 0 || y == ny - 1) {
    out[i] = in[i];
  } else {
    out[i] = 0.25f * ((in[i - nx] + in[i + nx]) + (in[i - 1] + in[i + 1]));
  }
}

#endif
