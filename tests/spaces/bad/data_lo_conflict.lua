-- expect: ct.inout options: lo with file
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.inout("float", "N", {lo = 0, file = "tiny.cu"}), --@
  },
  block = {32},
  grid = {2},
}
