-- expect: the element type of args[1] 'o' for T=quad is "quad" (expected float, double, int, int64, uint, uint8, half or bfloat16)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("T", {"float", "quad"}) },
  problem = { N = 64 },
  args = { ct.output(function(p) return p.T end, "N", {name = "o"}) }, --@
  block = {32},
  grid = {2},
  check = false,
}
