-- Kernel Tuner's examples/cuda/reduction.py with both of its passes in one configuration, on the
-- unchanged reduction.cu (give its folder with --kernel-path or CUTUNE_KERNEL_PATH). The script
-- tunes the first pass (num_blocks partial sums), then the second (the same kernel with
-- num_blocks = 1 summing them) for each block count, and adds the times. Here a configuration
-- is the pair, timed as one: pass 1 with the configuration's parameters, pass 2 with the same
-- ones and num_blocks = 1 (a program of its own: defines), reading the partial sums, whose
-- buffer has one element per block of pass 1. The same 2,376 configurations as the script's
-- first kernel. The check: the total in element 0 against sum_floats in one block of 1024
-- threads (reference.defines), rtol 1e-5 (the script's isclose).
local ct = require "cutune"
return ct.space {
  name = "kt_reduction_both",
  template = "reduction.cu",
  params = {
    ct.param("block_size_x", ct.pow2(32, 1024)),
    ct.param("vector", {1, 2, 4}),
    ct.param("num_blocks", ct.pow2(32, 32768)),
    ct.param("loop_unroll_factor_0", {0, 1, 8, 16, 32, 64}),
    ct.param("use_shuffle", {0, 1}),
  },
  problem = { n = 800000000 },
  args = {
    ct.output("float", 1, {name = "sum", rtol = 1e-5, atol = 1e-6}),
    ct.output("float", function(n, p) return p.num_blocks end, {name = "partial", check = false}),
    ct.input("float", "n", {name = "array", lo = 0, hi = 1}),
    ct.scalar("int", "n", {name = "n"}),
    ct.scalar("int", function(n, p) return p.num_blocks end, {name = "nblocks"}),
  },
  launches = {
    ct.launch { kernel = "sum_floats", args = {"partial", "array", "n"},
                block = function(p, n) return p.block_size_x end, grid = function(p, n) return p.num_blocks end },
    ct.launch { kernel = "sum_floats", defines = { num_blocks = 1 }, args = {"sum", "partial", "nblocks"},
                block = function(p, n) return p.block_size_x end, grid = {1} },
  },
  reference = {
    kernel = "sum_floats", args = {"sum", "array", "n"}, block = {1024}, grid = {1},
    defines = { block_size_x = 1024, vector = 1, num_blocks = 1, loop_unroll_factor_0 = 1, use_shuffle = 0 },
  },
  bytes = function(n) return 4 * n.n end,
  timeout = 30,
}
