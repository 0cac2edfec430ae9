-- expect: runtime parameter 'N' has the name of a size of problem N=64
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}), ct.param("N", {1, 2}, {runtime = true}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.scalar("int", function(n, p) return p.N end) },
  block = {32},
  grid = {2},
}
