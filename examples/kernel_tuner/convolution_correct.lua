-- Kernel Tuner's examples/cuda/convolution_correct.py as a cutune space, on the unchanged
-- convolution.cu (give its folder with --kernel-path or CUTUNE_KERNEL_PATH). As the script: the
-- four parameters (block_size_x 16..128, block_size_y 1..32, tile_size_x/y 1, 2, 4) with Kernel
-- Tuner's max_threads rule (342 configurations, as it counts them), the 4096 x 4096 image and the
-- source's default 17 x 17 filter (the script tunes no filter size), the input (4096+16)^2, the
-- filter in constant memory (cmem_args d_filter: the same array as the third argument), grid_div_x
-- block_size_x * tile_size_x and grid_div_y block_size_y * tile_size_y. The script's answer is
-- convolution_naive run once on the same arguments (run_kernel, 16 x 16 threads) with None for the
-- two inputs: here that kernel is the reference, and the output alone is compared (inputs never
-- are), with Kernel Tuner's default test, numpy.allclose with atol 1e-6 (rtol 1e-5).
local ct = require "cutune"
return ct.space {
  name = "kt_convolution_correct",
  template = "convolution.cu",
  kernel = "convolution_kernel",
  params = {
    ct.param("block_size_x", ct.range(16, 128, 16)),
    ct.param("block_size_y", ct.pow2(1, 32)),
    ct.param("tile_size_x", ct.pow2(1, 4)),
    ct.param("tile_size_y", ct.pow2(1, 4)),
  },
  constraints = {
    ct.rule({"block_size_x", "block_size_y"}, function(p) return p.block_size_x * p.block_size_y <= 1024 end,
            "at most 1024 threads per block (Kernel Tuner's max_threads)"),
  },
  problem = { W = 4096, H = 4096 },
  args = {
    ct.output("float", "W*H", {name = "output"}),
    ct.input("float", "(W+16)*(H+16)", {name = "input"}),
    ct.input("float", 17 * 17, {name = "filter"}),
  },
  symbols = { ct.symbol("d_filter", "float", {from = "filter"}) },
  block = function(p, n) return p.block_size_x, p.block_size_y end,
  grid = function(p, n)
    return ct.cdiv(n.W, p.block_size_x * p.tile_size_x), ct.cdiv(n.H, p.block_size_y * p.tile_size_y)
  end,
  reference = { kernel = "convolution_naive", block = {16, 16},
                grid = function(n) return ct.cdiv(n.W, 16), ct.cdiv(n.H, 16) end },
  check = { atol = 1e-6, rtol = 1e-5 },
  bytes = function(n) return 4 * (n.W * n.H + (n.W + 16) * (n.H + 16)) end,
}
