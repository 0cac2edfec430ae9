-- expect: no shapes today
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = { {N = 1}, function() error("no shapes today") end }, --@
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
