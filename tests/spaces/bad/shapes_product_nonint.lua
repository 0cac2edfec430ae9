-- expect: ct.product: N[2] must be an integer (got 2.5)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = ct.product{M = {1}, N = {1, 2.5}}, --@
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
