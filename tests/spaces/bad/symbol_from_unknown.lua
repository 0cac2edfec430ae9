-- expect: from = "nope" names no input or inout buffer of args
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.input("float", "N", {name = "x"}) },
  symbols = { ct.symbol("c", "float", {from = "nope"}) }, --@
  block = {32},
  grid = {2},
}
