-- Kernel Tuner's examples/cuda/expdist.py (its first tune_kernel, ExpDist: the kernel whose
-- configuration the script keeps) as a cutune space, on the unchanged expdist.cu. The source is
-- not in this project: give its folder, e.g.
--   cutune run --kernel-path ../kt-examples examples/kernel_tuner/expdist.lua
-- (or CUTUNE_KERNEL_PATH). As the script: the same five parameters with Kernel Tuner's
-- max_threads (640 configurations, as it counts them), 2000 x 2000 points of two dimensions
-- (alloc_size 3000), grid_div_x/y. expdist.cu includes <cub/cub.cuh>, whose device-wide
-- algorithms NVRTC cannot compile: nvrtc/cub/cub.cuh, next to this file, includes only the
-- block reduction the kernel uses and shadows it (options: -Invrtc, found beside this file).
-- The data differ from the script's: cutune fills A and B independently, uniform in [-1, 1)
-- (the script's B is A plus 1e-5 noise) and the scales uniform in [0, 0.02) (the script's
-- |0.01 randn|); the kernel does the same work whatever the values. The output holds one
-- partial cross term per block (its count depends on the configuration), zeroed before each
-- run as Kernel Tuner's cost array is; the check is their sum against ExpDist's own in its
-- default configuration (the source's #ifndef defaults: 32 x 4 threads, 4 x 4 tiles), within
-- rtol 1e-9 (doubles summed in another order). The script checks nothing.
local ct = require "cutune"
return ct.space {
  name = "kt_expdist",
  template = "expdist.cu",
  kernel = "ExpDist",
  params = {
    ct.param("block_size_x", ct.pow2(32, 512)),
    ct.param("block_size_y", ct.pow2(1, 32)),
    ct.param("tile_size_x", ct.pow2(1, 8)),
    ct.param("tile_size_y", ct.pow2(1, 8)),
    ct.param("use_shared_mem", {0, 1}),
  },
  constraints = {
    ct.rule({"block_size_x", "block_size_y"}, function(p) return p.block_size_x * p.block_size_y <= 1024 end,
            "at most 1024 threads per block (Kernel Tuner's max_threads)"),
  },
  problem = { m = 2000, n = 2000 },
  args = {
    ct.input("double", 3000 * 2, {name = "A"}),
    ct.input("double", 3000 * 2, {name = "B"}),
    ct.scalar("int", "m"),
    ct.scalar("int", "n"),
    ct.input("double", 3000, {name = "scale_A", lo = 0, hi = 0.02}),
    ct.input("double", 3000, {name = "scale_B", lo = 0, hi = 0.02}),
    ct.output("double", function(n, p)
      return ct.cdiv(n.m, p.block_size_x * p.tile_size_x) * ct.cdiv(n.n, p.block_size_y * p.tile_size_y)
    end, {name = "cost", fill = "zero", reduce = "sum", rtol = 1e-9, atol = 1e-12}),
  },
  block = function(p, n) return p.block_size_x, p.block_size_y end,
  grid = function(p, n)
    return ct.cdiv(n.m, p.block_size_x * p.tile_size_x), ct.cdiv(n.n, p.block_size_y * p.tile_size_y)
  end,
  options = { "-Invrtc" },
  reference = { kernel = "ExpDist", block = {32, 4},
                grid = function(n) return ct.cdiv(n.m, 32 * 4), ct.cdiv(n.n, 4 * 4) end },
  timeout = 30,
}
