-- expect: on problem N=64: the element count is 65 but the values holds 64
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.input("int", "N+1", {values = function(n) local t = {} for i = 1, n.N do t[i] = i end return t end}), --@
  },
  block = {32},
  grid = {2},
}
