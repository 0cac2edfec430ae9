-- expect: space is missing required key 'params'
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
