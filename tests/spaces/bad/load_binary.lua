-- expect: binary chunks are not allowed
local ct = require "cutune"
local f = load("return 1", "x", "b") --@
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
