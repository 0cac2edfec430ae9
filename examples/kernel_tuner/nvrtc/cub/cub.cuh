// CUB's umbrella header as NVRTC can compile it: the block-level primitive expdist.cu uses.
// The toolkit's <cub/cub.cuh> also includes CUB's device-wide algorithms, whose host code NVRTC
// refuses ("a function explicitly marked as a __host__ function is not allowed in JIT mode");
// nvcc, which Kernel Tuner's default backend runs, compiles it. examples/kernel_tuner/expdist.lua
// gives this folder as -I, ahead of the toolkit's CCCL folder, so expdist.cu stays unchanged.
#pragma once
#include <cub/block/block_reduce.cuh>
