-- expect: check.mismatches must be an integer >= 0 (got number -1)
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  check = { mismatches = -1 },
}
