-- Kernel Tuner's examples/cuda/sepconv.py, its first tune_kernel (the row pass of a separable
-- convolution), as a cutune space on the unchanged convolution.cu (give its folder with
-- --kernel-path or CUTUNE_KERNEL_PATH); sepconv_col.lua is the second. As the script: its
-- tune_params with filter_height and tile_size_y set to 1 (a 1 x fw filter, fw 3..17), block_size_x
-- 16..1024, block_size_y 1..32, tile_size_x 1..10, its two restrictions and Kernel Tuner's
-- max_threads rule (29,920 configurations, as it counts them); the 4096 x 4096 image, the input
-- sized for the largest filter ((4096+16)^2), the 17 x 17 filter array in constant memory
-- (cmem_args d_filter, also the third argument), grid_div_x block_size_x * tile_size_x, grid_div_y
-- block_size_y * tile_size_y. The script checks nothing; here convolution_naive of the same file
-- is the reference, compiled into each configuration's program (it reads the tuned filter size:
-- reference.params), atol/rtol 1e-4. Configurations over 48 KB of static shared memory are
-- recorded invalid.
local ct = require "cutune"
return ct.space {
  name = "kt_sepconv_row",
  template = "convolution.cu",
  kernel = "convolution_kernel",
  params = {
    ct.param("filter_height", {1}),
    ct.param("filter_width", ct.range(3, 17, 2)),
    ct.param("block_size_x", ct.range(16, 1024, 16)),
    ct.param("block_size_y", ct.pow2(1, 32)),
    ct.param("tile_size_x", ct.range(1, 10)),
    ct.param("tile_size_y", {1}),
    ct.param("use_padding", {0, 1}),
    ct.param("read_only", {0, 1}),
  },
  constraints = {
    ct.rule({"block_size_x", "block_size_y"}, function(p) return p.block_size_x * p.block_size_y <= 1024 end,
            "at most 1024 threads per block (Kernel Tuner's max_threads)"),
    ct.rule({"block_size_x", "use_padding"}, function(p) return p.use_padding == 0 or p.block_size_x % 32 ~= 0 end,
            "use_padding==0 or (block_size_x % 32 != 0)"),
    ct.rule({"block_size_x", "block_size_y"}, function(p) return p.block_size_x * p.block_size_y >= 32 end,
            "block_size_x*block_size_y >= 32"),
  },
  problem = { W = 4096, H = 4096 },
  args = {
    ct.output("float", "W*H", {name = "output_image"}),
    ct.input("float", "(W+16)*(H+16)", {name = "input_image"}),   -- (4096 + largest filter - 1)^2
    ct.input("float", 17 * 17, {name = "filter_weights"}),
  },
  symbols = { ct.symbol("d_filter", "float", {from = "filter_weights"}) },
  block = function(p, n) return p.block_size_x, p.block_size_y end,
  grid = function(p, n)
    return ct.cdiv(n.W, p.block_size_x * p.tile_size_x), ct.cdiv(n.H, p.block_size_y * p.tile_size_y)
  end,
  reference = {
    kernel = "convolution_naive", params = {"filter_height", "filter_width"},
    block = {16, 16}, grid = function(n, p) return ct.cdiv(n.W, 16), ct.cdiv(n.H, 16) end,
  },
  check = { atol = 1e-4, rtol = 1e-4 },
  bytes = function(n) return 4 * (n.W * n.H + (n.W + 16) * (n.H + 16)) end,
  timeout = 30,
}
