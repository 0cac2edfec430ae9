-- expect: runtime parameter 'R' reaches no kernel argument
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}), ct.param("R", {1, 2}, {runtime = true}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.scalar("int", "N") },
  block = {32},
  grid = {2},
}
