-- expect: ct.product: where returned number (expected true or false)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = ct.product{N = {1, 2}, where = function(n) return 1 end}, --@
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
