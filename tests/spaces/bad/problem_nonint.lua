-- expect: problem.N must be an integer (got number 1.5)
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 1.5 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
