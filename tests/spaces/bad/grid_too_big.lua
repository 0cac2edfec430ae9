-- expect-limit: grid for TILE=16 on problem N=64 is (1, 70000): each dimension must be an integer in 1..65535
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = function(p, n) return 1, 70000 end, --@
}
