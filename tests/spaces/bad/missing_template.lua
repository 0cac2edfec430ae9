-- expect: template 'nope.cu' not found (looked in 
local ct = require "cutune"
return ct.space { --@
  template = "nope.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
