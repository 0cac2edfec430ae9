-- expect: params.TILE lists the value 16 twice
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = {
    ct.param("TILE", {16, 32, 16}), --@
  },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
