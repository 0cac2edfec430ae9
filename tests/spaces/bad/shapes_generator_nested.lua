-- expect: problems[1][1]: a generator function returned a function (it must return problems and shape sets)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = { function() return { function() return {N = 1} end } end }, --@
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
