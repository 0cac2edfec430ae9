-- expect: args[2] (ct.input 'in2') values on problem N=64 failed
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.input("float", {values = function(n) return n.M + 1 end}), --@
  },
  block = {32},
  grid = {2},
}
