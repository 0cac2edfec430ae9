-- expect-geometry: ct.cdiv: argument 2 must be an integer (got 2.5)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = function(p, n) return ct.cdiv(n.N, 2.5) end, --@
}
