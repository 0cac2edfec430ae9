-- Kernel Tuner's examples/cuda/reduction.py (its first tune_kernel: the kernel whose configuration
-- the script keeps) as a cutune space, on the unchanged reduction.cu (give its folder with
-- --kernel-path or CUTUNE_KERNEL_PATH): the same five parameters (2,376 configurations, as Kernel
-- Tuner counts them), 8e8 uniform [0, 1) floats, one block per num_blocks. The script's check,
-- verify_partial_reduce (numpy.isclose of the sum of the partial sums with the total), is a
-- check of a reduction here: the output is zeroed before each run (as Kernel Tuner resets it),
-- and its sum must match the reference's within rtol 1e-5. The reference: sum_floats itself in
-- one block of 1024 threads (reference.defines), which leaves the whole sum in element 0.
-- loop_unroll_factor_0 = 0 is Kernel Tuner's "no pragma": NVRTC ignores `#pragma unroll 0`
-- (warning 20168) and compiles the loop as without the pragma (docs/SPACE.md).
local ct = require "cutune"
return ct.space {
  name = "kt_reduction",
  template = "reduction.cu",
  kernel = "sum_floats",
  params = {
    ct.param("block_size_x", ct.pow2(32, 1024)),
    ct.param("vector", {1, 2, 4}),
    ct.param("num_blocks", ct.pow2(32, 32768)),
    ct.param("loop_unroll_factor_0", {0, 1, 8, 16, 32, 64}),
    ct.param("use_shuffle", {0, 1}),
  },
  problem = { n = 800000000 },
  args = {
    ct.output("float", 32768, {name = "sum_global", fill = "zero", reduce = "sum", rtol = 1e-5, atol = 1e-6}),
    ct.input("float", "n", {name = "array", lo = 0, hi = 1}),
    ct.scalar("int", "n"),
  },
  block = function(p, n) return p.block_size_x end,
  grid = function(p, n) return p.num_blocks end,
  reference = {
    kernel = "sum_floats", block = {1024}, grid = {1},
    defines = { block_size_x = 1024, vector = 1, num_blocks = 1, loop_unroll_factor_0 = 1, use_shuffle = 0 },
  },
  bytes = function(n) return 4 * n.n end,
  timeout = 30,
}
