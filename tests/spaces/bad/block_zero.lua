-- expect-limit: block for TILE=16 on problem N=64 is (0): each dimension must be an integer in 1..1024
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = function(p, n) --@
    return p.TILE - 16
  end,
  grid = {2},
}
