-- expect: values on problem N=64: expected a non-empty list of numbers
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.input("float", {values = {1, "two"}}), --@
  },
  block = {32},
  grid = {2},
}
