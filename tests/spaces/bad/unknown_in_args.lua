-- expect: unknown field 'fil' in ct.input options
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = {
    ct.output("float", "N"),
    ct.input("float", "N", {fil = "zero"}), --@
  },
  block = {32},
  grid = {2},
}
