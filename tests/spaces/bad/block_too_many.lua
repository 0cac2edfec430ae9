-- expect-limit: block for TILE=32 on problem N=64 is (32, 64): 2048 threads, at most 1024 per block
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = function(p, n) return p.TILE, 64 end, --@
  grid = {2},
}
