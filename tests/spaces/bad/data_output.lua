-- expect: ct.output options: values is an input's or inout's data
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.output("float", "N", {values = {1}}), --@
  },
  block = {32},
  grid = {2},
}
