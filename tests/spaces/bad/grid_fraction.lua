-- expect-geometry: grid for TILE=16 on problem N=64 is (2.5): each dimension must be an integer in 1..2147483647 (x is 2.5)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = function(p, n) return 40 / p.TILE end, --@
}
