-- expect: arch for TILE=32 returned "sm90a" (expected nil, "sm_XY" or "sm_XYa")
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  arch = function(p) --@
    if p.TILE == 32 then return "sm90a" end
  end,
}
