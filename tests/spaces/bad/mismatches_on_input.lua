-- expect: ct.input options: mismatches is an output's check option (an input is never compared)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"),
           ct.input("float", "N", {mismatches = 1}) }, --@
  block = {32},
  grid = {2},
}
