-- expect: ct.output options.mismatches must be an integer >= 0 (got number 1.5)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N", {mismatches = 1.5}) }, --@
  block = {32},
  grid = {2},
}
