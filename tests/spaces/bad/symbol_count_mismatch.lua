-- expect: count is 8 but the values holds 3 elements
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  symbols = { ct.symbol("c", "float", 8, {values = {1, 2, 3}}) }, --@
  block = {32},
  grid = {2},
}
