-- expect-geometry: block returned a string for TILE=16 on problem N=64 (expected a number)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = function(p, n) return tostring(p.TILE) end, --@
  grid = {2},
}
