-- Kernel Tuner's examples/cuda/zeromeanfilter.py, its first tune_kernel (tune_vertical:
-- computeMeanVertically), as a cutune space on the unchanged zeromeanfilter.cu (give its folder
-- with --kernel-path or CUTUNE_KERNEL_PATH). As the script: the same two parameters with Kernel
-- Tuner's max_threads (31 configurations, as it counts them), the 4391 x 3539 image, one row of
-- blocks (problem size (width, 1), grid_div_x block_size_x, grid_div_y none). The kernel filters
-- the image in place, so it is an inout: restored before the check, as Kernel Tuner restores its
-- arguments. The script checks nothing; here computeMeanVertically_naive of the same file is the
-- reference (the source's default block_size_x, 32 threads a block), atol/rtol 1e-5 (float sums
-- of 2196 terms in another order).
local ct = require "cutune"
return ct.space {
  name = "kt_zeromeanfilter_vertical",
  template = "zeromeanfilter.cu",
  kernel = "computeMeanVertically",
  params = {
    ct.param("block_size_x", ct.range(32, 256, 32)),
    ct.param("block_size_y", ct.pow2(1, 32)),
  },
  constraints = {
    ct.rule({"block_size_x", "block_size_y"}, function(p) return p.block_size_x * p.block_size_y <= 1024 end,
            "at most 1024 threads per block (Kernel Tuner's max_threads)"),
  },
  problem = { H = 4391, W = 3539 },
  args = { ct.scalar("int", "H"), ct.scalar("int", "W"), ct.inout("float", "H*W", {name = "image"}) },
  block = function(p, n) return p.block_size_x, p.block_size_y end,
  grid = function(p, n) return ct.cdiv(n.W, p.block_size_x), 1 end,
  reference = { kernel = "computeMeanVertically_naive", block = {32}, grid = function(n) return ct.cdiv(n.W, 32) end },
  check = { atol = 1e-5, rtol = 1e-5 },
  bytes = function(n) return 3 * 4 * n.H * n.W end,
}
