-- expect: the generator function of problems returned number 5 (expected a non-empty list of problems {N = 8192, ...} or a shape set)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = function() return 5 end, --@
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
