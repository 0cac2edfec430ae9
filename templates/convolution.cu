// convolution: 2-D convolution of a float32 image with a 15 x 15 filter (a "valid" convolution:
// the input carries a border of filter-1 pixels), one template for every variant cutune tunes.
// The parameter names and value sets are those of the public Kernel Tuner caches of this kernel
// (shared/data/tuning-caches/convolution: A100, A4000, A6000), so that an H200 store of
// lua/convolution_space.lua and those caches merge into one header (`cutune header`). The code
// is cutune's own.
//
//   in     (H + filter_height - 1) rows x (W + filter_width - 1) columns, row-major
//   filter filter_height x filter_width, row-major
//   out    H x W:  out[y][x] = sum_{i,j} in[y + i][x + j] * filter[i][j]
//
// Parameters (each reaches the kernel as -DNAME=value; the defaults let `nvcc -c` build it):
//   block_size_x, block_size_y  the thread block
//   tile_size_x, tile_size_y    outputs per thread in x and y: a block computes an output tile of
//                               (block_size_x*tile_size_x) x (block_size_y*tile_size_y); a thread's
//                               outputs are block_size_x (block_size_y) apart, so every warp load
//                               and store of a row is contiguous
//   read_only                   1: image loads through the read-only path (__ldg)
//   use_shmem                   1: the block stages its input tile (output tile + filter-1 border)
//                               in shared memory once and every output reads it from there;
//                               0: every tap is a global load (the caches catch the reuse)
//   use_padding                 1: one float of padding per shared row (with use_shmem, for
//                               block_size_x not a multiple of 32)
//   use_cmem                    1: filter taps through the constant-style path: warp-uniform loads
//                               through the read-only cache (__ldg). cutune passes buffers and
//                               scalars, not __constant__ data, so this is the closest honest
//                               equivalent; 0: plain loads. (The public caches only have 1.)
//   filter_height, filter_width the filter (15 x 15 in the space and the caches)
//
// Launch (lua/convolution_space.lua): block (block_size_x, block_size_y),
//   grid (ceil(W / (block_size_x*tile_size_x)), ceil(H / (block_size_y*tile_size_y))).
// With -DCUTUNE_REFERENCE=1 the file provides only convolution_ref: one output per thread,
// block {16, 16}, grid (ceil(W/16), ceil(H/16)), the same summation order.

#ifndef CUTUNE_REFERENCE

#ifndef block_size_x
#define block_size_x 32
#endif
#ifndef block_size_y
#define block_size_y 8
#endif
#ifndef tile_size_x
#define tile_size_x 1
#endif
#ifndef tile_size_y
#define tile_size_y 2
#endif
#ifndef read_only
#define read_only 0
#endif
#ifndef use_padding
#define use_padding 0
#endif
#ifndef use_shmem
#define use_shmem 1
#endif
#ifndef use_cmem
#define use_cmem 1
#endif
#ifndef filter_height
#define filter_height 15
#endif
#ifndef filter_width
#define filter_width 15
#endif

#define CV_TW (block_size_x * tile_size_x)        // output tile width of a block
#define CV_TH (block_size_y * tile_size_y)        // ... and height
#define CV_IW (CV_TW + filter_width - 1)          // input tile of a block
#define CV_IH (CV_TH + filter_height - 1)
#define CV_SROW (CV_IW + (use_padding ? 1 : 0))  // floats per shared row

__device__ __forceinline__ float cv_image(const float *p) {
#if read_only
  return __ldg(p);
#else
  return *p;
#endif
}

__device__ __forceinline__ float cv_tap(const float *filter, int k) {
#if use_cmem
  return __ldg(filter + k); // every lane of the warp reads the same address
#else
  return filter[k];
#endif
}

extern "C" __global__ void __launch_bounds__(block_size_x * block_size_y)
convolution(float *out, const float *in, const float *filter, int W, int H) {
  const int in_w = W + filter_width - 1, in_h = H + filter_height - 1;
  const int x0 = blockIdx.x * CV_TW, y0 = blockIdx.y * CV_TH;
  const int tx = threadIdx.x, ty = threadIdx.y;
  float acc[tile_size_y][tile_size_x];
#pragma unroll
  for (int a = 0; a < tile_size_y; a++)
#pragma unroll
    for (int b = 0; b < tile_size_x; b++) acc[a][b] = 0.0f;

#if use_shmem
  __shared__ float tile[CV_IH * CV_SROW];
  for (int i = ty; i < CV_IH; i += block_size_y) {
    const int gy = y0 + i;
    for (int j = tx; j < CV_IW; j += block_size_x) {
      const int gx = x0 + j;
      tile[i * CV_SROW + j] = (gy < in_h && gx < in_w) ? cv_image(in + (long long)gy * in_w + gx) : 0.0f;
    }
  }
  __syncthreads();
#endif

  for (int i = 0; i < filter_height; i++) {
#pragma unroll
    for (int j = 0; j < filter_width; j++) {
      const float w = cv_tap(filter, i * filter_width + j);
#pragma unroll
      for (int a = 0; a < tile_size_y; a++) {
#pragma unroll
        for (int b = 0; b < tile_size_x; b++) {
          const int r = ty + a * block_size_y + i, c = tx + b * block_size_x + j; // in the input tile
#if use_shmem
          acc[a][b] += tile[r * CV_SROW + c] * w;
#else
          const int gy = y0 + r, gx = x0 + c;
          if (gy < in_h && gx < in_w) acc[a][b] += cv_image(in + (long long)gy * in_w + gx) * w;
#endif
        }
      }
    }
  }

#pragma unroll
  for (int a = 0; a < tile_size_y; a++) {
    const int y = y0 + ty + a * block_size_y;
#pragma unroll
    for (int b = 0; b < tile_size_x; b++) {
      const int x = x0 + tx + b * block_size_x;
      if (y < H && x < W) out[(long long)y * W + x] = acc[a][b];
    }
  }
}

#else  // CUTUNE_REFERENCE

#define CV_REF_F 15
// One output per thread, block {16, 16}; taps summed in the order of the tuned kernel.
extern "C" __global__ void convolution_ref(float *out, const float *in, const float *filter, int W, int H) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= W || y >= H) return;
  const int in_w = W + CV_REF_F - 1;
  float acc = 0.0f;
  for (int i = 0; i < CV_REF_F; i++)
    for (int j = 0; j < CV_REF_F; j++) acc += in[(long long)(y + i) * in_w + x + j] * filter[i * CV_REF_F + j];
  out[(long long)y * W + x] = acc;
}

#endif  // CUTUNE_REFERENCE
