-- softmax.lua: row-wise softmax of a rows x cols float matrix (examples/kernels/softmax.cu).
-- Tunes the threads per block, the vector width of loads and stores and how many consecutive rows
-- one block walks (a runtime parameter: a kernel argument, so those variants share one compile).
-- The template parameters of softmax_rows are named BLOCK and VEC, so the space's parameters,
-- which become -D macros, must not be: BLOCK_SIZE and VEC_WIDTH stand in the kernel's name.
local ct = require "cutune"

return ct.space {
  name = "softmax",
  template = "softmax.cu",
  kernel = "softmax_rows<BLOCK_SIZE, VEC_WIDTH>",

  params = {
    ct.param("BLOCK_SIZE", {32, 64, 128, 256, 512, 1024}),
    ct.param("VEC_WIDTH", {1, 2, 4}),
    ct.param("ROWS_PER_BLOCK", {1, 2, 4, 8}, {runtime = true}),
  },
  constraints = {
    -- a block much wider than a row leaves most threads idle through both passes
    ct.rule({"BLOCK_SIZE", "VEC_WIDTH"}, function(p) return p.BLOCK_SIZE * p.VEC_WIDTH <= 4096 end,
            "at most 4096 floats per block and step"),
  },

  -- cols: a power of two, a multiple of 4 that is not one (rows stay 16-byte aligned), a vocabulary
  -- size that is 2 mod 4 (every other row starts 8 bytes off: head and tail) and an odd width.
  problems = {
    {rows = 8192, cols = 4096},
    {rows = 16384, cols = 1000},
    {rows = 1024, cols = 30522},
    {rows = 32768, cols = 257},
  },

  args = {
    ct.output("float", "rows*cols", {name = "out"}),
    ct.input("float", "rows*cols", {name = "in", lo = -8, hi = 8}),
    ct.scalar("int", "rows", {name = "rows"}),
    ct.scalar("int", "cols", {name = "cols"}),
    ct.scalar("int", "ROWS_PER_BLOCK", {name = "rows_per_block"}),
  },

  block = function(p, n) return p.BLOCK_SIZE end,
  grid = function(p, n) return ct.cdiv(n.rows, p.ROWS_PER_BLOCK) end,

  reference = {
    kernel = "softmax_rows_ref",
    args = {"out", "in", "rows", "cols"},
    block = {128},
    grid = function(n) return ct.cdiv(n.rows, 128) end,
  },
  -- the reference sums in double; the kernel's float tree reduction of up to 30522 terms and the
  -- rescaling of the online sum stay within a few 1e-6 relative
  check = { atol = 1e-9, rtol = 2e-5 },
  bytes = function(n) return 2 * 4 * n.rows * n.cols end,  -- the matrix read once, written once
}
