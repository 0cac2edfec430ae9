-- expect: the element type of args[1] 'o' for the reference (its p: reference.defines, which must give what the function reads) is nil
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("T", {"float", "half"}) },
  problem = { N = 64 },
  args = { ct.output(function(p) return p.T end, "N", {name = "o"}) }, --@
  block = {32},
  grid = {2},
  reference = { kernel = "tiny", block = {32}, grid = {2} },
}
