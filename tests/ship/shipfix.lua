-- The fixture space of the header and Pareto tests: 12 configurations, two problems.
local ct = require "cutune"
return ct.space {
  name = "shipfix",
  template = "shipfix.cu",
  kernel = "scale",
  params = { ct.param("A", {1, 2, 4}), ct.param("B", {1, 2}), ct.param("C", {0, 1}) },
  problems = { {N = 1000, K = 10}, {N = 100000, K = 10} },
  args = { ct.output("float", "N"), ct.input("float", "N"), ct.scalar("int", "N"), ct.scalar("int", "K") },
  block = function(p, n) return 32 * p.A, p.B end,
  grid = function(p, n) return ct.cdiv(n.N, 32 * p.A) end,
  reference = { kernel = "scale_ref", block = {32}, grid = function(n) return ct.cdiv(n.N, 32) end },
  objectives = { "time", "energy" },
}
