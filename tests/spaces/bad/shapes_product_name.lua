-- expect: ct.product: size names must be identifiers (got number 1)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = ct.product{M = {1}, {2}}, --@
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
