-- expect: ct.product gives no shape (its where function rejects every combination?)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = ct.product{N = {1, 2}, where = function(n) return false end}, --@
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
