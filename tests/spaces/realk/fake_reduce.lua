-- Fixture for tests/cli_fake_realk.sh: a check of a reduction. partial_sum writes one partial sum
-- per block (the grid is tuned); the output is zeroed before each run, and its sum must match the
-- reference's total (one block) within rtol. $FAKE_UNCHECKED: timing only (check = false).
local ct = require "cutune"
local unchecked = os.getenv("FAKE_UNCHECKED") ~= nil
local spec = {
  name = "fake_reduce",
  template = "fake_cxx.cu",
  kernel = "partial_sum",
  params = { ct.param("G", {8, 16, 64}) },
  problem = { n = 65536 },
  args = { ct.output("float", 64, {fill = "zero", reduce = "sum", rtol = 1e-5}), ct.input("float", "n", {lo = 0, hi = 1}),
           ct.scalar("int", "n") },
  block = {256},
  grid = function(p, n) return p.G end,
  timeout = 60,
}
if unchecked then spec.check = false
else spec.reference = { kernel = "total_sum", block = {256}, grid = {1} } end
return ct.space(spec)
