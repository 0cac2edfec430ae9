-- expect: ct.product: 1000 x 1000 x 1000 = 1000000000 shapes, more than 65536 (the cap on a space's problems; raise it with CUTUNE_MAX_PROBLEMS=N)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = ct.product{K = ct.range(1, 1000), M = ct.range(1, 1000), N = ct.range(1, 1000)}, --@
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
