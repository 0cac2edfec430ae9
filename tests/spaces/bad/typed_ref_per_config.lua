-- expect: args[1] 'o' is typed by the configuration: its reference must run in one type, compiled once (reference.defines)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("T", {"float", "half"}) },
  problem = { N = 64 },
  args = { ct.output(function(p) return p.T end, "N", {name = "o"}) }, --@
  block = {32},
  grid = {2},
  reference = { kernel = "tiny", params = {"T"}, block = {32}, grid = {2} },
}
