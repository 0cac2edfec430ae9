-- histogram.lua: 256-bin histogram of n bytes (examples/kernels/histogram.cu), shared-memory
-- privatised bins merged into the global ones with atomics. Tunes the threads per block, the
-- 32-bit words each thread loads and the number of private copies of the bins per block.
-- The output is zeroed before each run (fill = "zero"; outputs are otherwise poisoned with 0xFF)
-- and compared exactly with a naive one-atomic-per-byte reference.
local ct = require "cutune"

return ct.space {
  name = "histogram",
  template = "histogram.cu",
  kernel = "histogram256<BLOCK, ITEMS, SUBHIST>",

  params = {
    ct.param("BLOCK", {128, 256, 512, 1024}),      -- threads per block
    ct.param("ITEMS", {1, 2, 4, 8, 16}),           -- 4-byte words per thread
    ct.param("SUBHIST", {1, 2, 4, 8, 16, 32}),     -- private copies of the 256 bins per block
  },

  -- 256 MiB (beyond the H200's L2), 16 MiB (L2-resident) and a prime size (a tail of 3 bytes
  -- after the last whole word). The bytes are uniform over 0..255 (uint8's default fill).
  problems = {
    {n = 1 << 28},
    {n = 1 << 24},
    {n = 1000003},
  },

  args = {
    ct.output("uint", 256, {name = "hist", fill = "zero"}),
    ct.input("uint8", "n", {name = "data"}),
    ct.scalar("int64", "n", {name = "n"}),
  },

  block = function(p, n) return p.BLOCK end,
  grid = function(p, n) return math.max(1, ct.cdiv(n.n // 4, p.BLOCK * p.ITEMS)) end,

  reference = {
    kernel = "histogram256_ref",
    block = {256},
    grid = function(n) return ct.cdiv(n.n, 256) end,
  },
  -- integer output: compared bit for bit by default
  bytes = function(n) return n.n + 4 * 256 end,
}
