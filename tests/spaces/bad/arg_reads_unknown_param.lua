-- expect: p.TILEX: not a parameter of the space
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}), ct.param("R", {1, 2}, {runtime = true}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.scalar("int", "R"),
    ct.scalar("int", function(n, p) return p.TILEX end) }, --@
  block = {32},
  grid = {2},
}
