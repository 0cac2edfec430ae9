-- expect: attempt to perform arithmetic on a nil value (global 'undefined_size')
local ct = require "cutune"
local size = undefined_size * 2 --@
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
