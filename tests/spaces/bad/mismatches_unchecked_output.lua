-- expect: ct.output options: check = false with mismatches (an output left uncompared takes no check options)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.output("float", "N", {check = false, mismatches = 1}) }, --@
  block = {32},
  grid = {2},
}
