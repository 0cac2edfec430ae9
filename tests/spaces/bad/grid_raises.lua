-- expect-geometry: grid failed for TILE=16 on problem N=64: tests/spaces/bad/grid_raises.lua:10: attempt to index a nil value (field 'x')
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = function(p, n) return n.x.y end, --@
}
