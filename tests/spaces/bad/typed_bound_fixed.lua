-- expect: ct.output options: atol or rtol by element type, but the buffer's type is fixed (float): give a number
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N", {name = "o", atol = {float = 1e-6}}) }, --@
  block = {32},
  grid = {2},
}
