-- Fixture for tests/test_space.c: 10,000 shapes from one ct.product (a where filter keeps all
-- of 100 x 101 but the 100 with M == N + 1000, so the filter is exercised), loaded in linear
-- time; with CUTUNE_MAX_PROBLEMS below 10000 the same file is refused.
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = ct.product{M = ct.range(1001, 1100), N = ct.range(1, 101), where = function(n) return n.M ~= n.N + 1000 end},
  args = { ct.output("float", "M*N"), ct.input("float", "M*N"), ct.scalar("int", "N") },
  block = {32},
  grid = function(p, n) return ct.cdiv(n.M * n.N, 32) end,
}
