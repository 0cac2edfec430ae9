-- Kernel Tuner's examples/cuda/stencil.py as a cutune space, on the unchanged stencil.cu (give its
-- folder with --kernel-path or CUTUNE_KERNEL_PATH): the same two parameters with Kernel Tuner's
-- max_threads (31 configurations, as it counts them), the 4096 x 2048 domain (fixed in the
-- source), grid_div_x/y. The script checks nothing; here the reference is the same five-point
-- average written plainly (stencil_ref.cu, next to this file). The border is left unwritten by
-- both, so it keeps its poison in both and compares equal.
local ct = require "cutune"
return ct.space {
  name = "kt_stencil",
  template = "stencil.cu",
  kernel = "stencil_kernel",
  params = {
    ct.param("block_size_x", ct.range(32, 256, 32)),
    ct.param("block_size_y", ct.pow2(1, 32)),
  },
  constraints = {
    ct.rule({"block_size_x", "block_size_y"}, function(p) return p.block_size_x * p.block_size_y <= 1024 end,
            "at most 1024 threads per block (Kernel Tuner's max_threads)"),
  },
  problem = { W = 4096, H = 2048 },
  args = { ct.output("float", "W*H", {name = "x_new"}), ct.input("float", "W*H", {name = "x_old"}) },
  block = function(p, n) return p.block_size_x, p.block_size_y end,
  grid = function(p, n) return ct.cdiv(n.W, p.block_size_x), ct.cdiv(n.H, p.block_size_y) end,
  reference = { kernel = "kt_stencil_ref", template = "stencil_ref.cu", block = {32, 8},
                grid = function(n) return ct.cdiv(n.W, 32), ct.cdiv(n.H, 8) end },
  check = { atol = 1e-6, rtol = 1e-6 },
  bytes = function(n) return 8 * n.W * n.H end,
}
