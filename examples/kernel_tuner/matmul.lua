-- Kernel Tuner's examples/cuda/matmul.py as a cutune space, on the unchanged matmul.cu (give its
-- folder with --kernel-path or CUTUNE_KERNEL_PATH): the same four parameters and restriction,
-- Kernel Tuner's max_threads (40 configurations, as it counts them), 4096^2 matrices (WIDTH in
-- the source), grid_div_x/y. The script checks C against numpy.dot(A, B) with numpy.allclose;
-- here the reference is a plain dot product per element (matmul_ref.cu, next to this file),
-- within atol 1e-3 and rtol 1e-4: float sums of 4096 terms in another order differ by about
-- 1e-4 of the result. Configurations over the architecture's 48 KB of static shared memory are
-- recorded invalid (Kernel Tuner skips them the same way).
local ct = require "cutune"
return ct.space {
  name = "kt_matmul",
  template = "matmul.cu",
  kernel = "matmul_kernel",
  params = {
    ct.param("block_size_x", {16, 32, 64}),
    ct.param("block_size_y", ct.pow2(1, 32)),
    ct.param("tile_size_x", ct.pow2(1, 8)),
    ct.param("tile_size_y", ct.pow2(1, 8)),
  },
  constraints = {
    ct.rule({"block_size_x", "block_size_y"}, function(p) return p.block_size_x * p.block_size_y <= 1024 end,
            "at most 1024 threads per block (Kernel Tuner's max_threads)"),
    ct.rule({"block_size_x", "block_size_y", "tile_size_y"},
            function(p) return p.block_size_x == p.block_size_y * p.tile_size_y end, "block_size_x==block_size_y*tile_size_y"),
  },
  problem = { N = 4096 },
  args = { ct.output("float", "N*N", {name = "C"}), ct.input("float", "N*N", {name = "A"}),
           ct.input("float", "N*N", {name = "B"}) },
  block = function(p, n) return p.block_size_x, p.block_size_y end,
  grid = function(p, n) return ct.cdiv(n.N, p.block_size_x * p.tile_size_x), ct.cdiv(n.N, p.block_size_y * p.tile_size_y) end,
  reference = { kernel = "kt_matmul_ref", template = "matmul_ref.cu", block = {16, 16},
                grid = function(n) return ct.cdiv(n.N, 16), ct.cdiv(n.N, 16) end },
  check = { atol = 1e-3, rtol = 1e-4 },
  flops = function(n) return 2 * n.N ^ 3 end,
  timeout = 30,
}
