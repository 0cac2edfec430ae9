-- expect: args[2] (ct.input 'in2') on problem N=64: the element count is 64 but the values holds 3
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.input("float", "N", {values = {1, 2, 3}}), --@
  },
  block = {32},
  grid = {2},
}
