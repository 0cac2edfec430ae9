-- expect: kernel 'tiny; x' is not a kernel's C++ name
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny; x",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
