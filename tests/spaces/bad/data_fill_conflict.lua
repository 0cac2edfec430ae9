-- expect: ct.input options: fill with values (the data comes from values; fill is the seeded fill's)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.input("float", "N", {fill = "zero", values = {1, 2}}), --@
  },
  block = {32},
  grid = {2},
}
