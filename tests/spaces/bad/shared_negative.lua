-- expect-limit: shared for TILE=16 on problem N=64 is (-4): expected one integer
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  shared = function(p, n) return -4 end, --@
}
