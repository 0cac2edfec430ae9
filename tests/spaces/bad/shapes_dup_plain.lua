-- expect: problems[3] repeats the problem N=1
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = { {N = 1}, {N = 2}, {N = 1} },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
