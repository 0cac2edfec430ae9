-- expect: ct.input options: give one of values and file
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.input("float", "N", {values = {1}, file = "tiny.cu"}), --@
  },
  block = {32},
  grid = {2},
}
