-- Fixture for tests/test_space.c: a shape set (docs/SPACE.md, "Shape sets") built from every
-- form — a plain table, ct.product, ct.zip (whose first shape repeats the first problem: tuned
-- once), a generator function returning tables and a set — in that order: 9 problems.
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = {
    {M = 4096, N = 4096, K = 4096},
    ct.product{M = {256, 512}, N = {256, 512}, K = {1024}},
    ct.zip{M = {4096, 100}, N = {4096, 100}, K = {4096, 100}},
    function() return { {M = 7, N = 7, K = 7}, ct.product{M = {1}, N = {1}, K = {1, 2}} } end,
  },
  args = { ct.output("float", "M*N"), ct.input("float", "M*K"), ct.scalar("int", "K") },
  block = {32},
  grid = function(p, n) return ct.cdiv(n.M * n.N, 32) end,
  flops = function(n) return 2 * n.M * n.N * n.K end,
}
