// Shadows the toolkit's <cub/cub.cuh> (whose device-wide algorithms hold host code NVRTC refuses)
// with the block-level part a kernel uses: a space's -I folder comes before the toolkit's CCCL.
#pragma once
#include <cub/block/block_reduce.cuh>
