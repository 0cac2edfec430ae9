-- expect: params.T: the value "float,double" at position 2 cannot be a parameter's value: it holds a character
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("T", {"half", "float,double"}) }, --@
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
