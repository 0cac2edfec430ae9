-- expect: ct.product: M must be a non-empty list of integer sizes (got an empty table)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = ct.product{M = {}, N = {1}}, --@
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
