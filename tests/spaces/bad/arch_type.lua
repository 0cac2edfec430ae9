-- expect: arch must be a function(p) giving "sm_XY" or "sm_XYa" (or nil), or one such string (got number)
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  arch = 90,
}
