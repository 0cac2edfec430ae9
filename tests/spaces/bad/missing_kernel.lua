-- expect: space is missing required key 'kernel'
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
