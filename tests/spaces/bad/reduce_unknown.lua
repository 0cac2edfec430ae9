-- expect: reduce must be "sum", "max" or "min" (got "avg")
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N", {reduce = "avg"}) }, --@
  block = {32},
  grid = {2},
}
