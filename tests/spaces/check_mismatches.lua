-- Fixture for tests/test_space.c: how many elements each output may let differ (mismatches) —
-- its own option, else the space's check.mismatches; a reduce check and an input get none.
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N", {mismatches = 3}), ct.output("float", "N"),
           ct.output("float", 4, {reduce = "sum"}), ct.inout("float", "N", {mismatches = 0}),
           ct.input("float", "N"), "N" },
  block = {32},
  grid = {2},
  check = { atol = 1e-6, mismatches = 5 },
}
