-- Kernel Tuner's examples/cuda/convolution.py as a cutune space, on the unchanged convolution.cu.
-- The source is not in this project: give its folder, e.g.
--   cutune run --kernel-path ../shared/kernel_tuner/examples/cuda examples/kernel_tuner/convolution.lua
-- (or CUTUNE_KERNEL_PATH). As the script: the same eight parameters and restriction, the
-- 4096 x 4096 image (fixed in the source), the filter in constant memory (cmem_args d_filter:
-- the same array as the third argument), grid_div_x/y as the grid. Kernel Tuner also drops the
-- configurations over 1024 threads per block (its max_threads restriction): the second rule.
-- Count: 1,867,776, as Kernel Tuner's Searchspace gives for the script's parameters.
-- The script checks nothing; here convolution_naive from the same file is the reference. It
-- reads filter_height and filter_width, which are tuned, so it is compiled into each
-- configuration's program (reference.params) and run again only when the filter size changes.
-- Configurations whose shared memory exceeds the architecture's limit are recorded invalid.
local ct = require "cutune"
return ct.space {
  name = "kt_convolution",
  template = "convolution.cu",
  kernel = "convolution_kernel",
  params = {
    ct.param("filter_height", ct.range(3, 33, 2)),
    ct.param("filter_width", ct.range(3, 33, 2)),
    ct.param("block_size_x", ct.range(16, 128, 16)),
    ct.param("block_size_y", ct.pow2(1, 32)),
    ct.param("tile_size_x", ct.range(1, 8)),
    ct.param("tile_size_y", ct.range(1, 8)),
    ct.param("use_padding", {0, 1}),
    ct.param("read_only", {0, 1}),
  },
  constraints = {
    ct.rule({"block_size_x", "block_size_y"}, function(p) return p.block_size_x * p.block_size_y <= 1024 end,
            "at most 1024 threads per block (Kernel Tuner's max_threads)"),
    ct.rule({"block_size_x", "use_padding"}, function(p) return p.use_padding == 0 or p.block_size_x % 32 ~= 0 end,
            "use_padding==0 or (block_size_x % 32 != 0)"),
  },
  problem = { W = 4096, H = 4096 },
  args = {
    ct.output("float", "W*H", {name = "output"}),
    ct.input("float", "(W+32)*(H+32)", {name = "input"}),   -- (4096 + largest filter - 1)^2
    ct.input("float", 33 * 33, {name = "filter"}),
  },
  symbols = { ct.symbol("d_filter", "float", {from = "filter"}) },
  block = function(p, n) return p.block_size_x, p.block_size_y end,
  grid = function(p, n)
    return ct.cdiv(n.W, p.block_size_x * p.tile_size_x), ct.cdiv(n.H, p.block_size_y * p.tile_size_y)
  end,
  reference = {
    kernel = "convolution_naive", params = {"filter_height", "filter_width"},
    block = {16, 16}, grid = function(n, p) return ct.cdiv(n.W, 16), ct.cdiv(n.H, 16) end,
  },
  check = { atol = 1e-4, rtol = 1e-4 },
  bytes = function(n) return 4 * (n.W * n.H + (n.W + 32) * (n.H + 32)) end,
  timeout = 30,
}
