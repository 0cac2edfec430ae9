-- expect: a buffer filled from data has one element count per problem
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.input("float", function(n, p) return p.TILE end, {values = {1}}), --@
  },
  block = {32},
  grid = {2},
}
