-- expect: missing the element count (a number, "N*M" or function(n)), or values or a file that give it
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.input("float", nil, {name = "x"}), --@
  },
  block = {32},
  grid = {2},
}
