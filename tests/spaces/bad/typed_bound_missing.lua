-- expect: ct.output options: atol gives no bound for half, a type of args[1] 'o'
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("T", {"float", "half"}) },
  problem = { N = 64 },
  args = { ct.output(function(p) return p.T end, "N", {name = "o", atol = {float = 1e-6}}) }, --@
  block = {32},
  grid = {2},
  reference = { kernel = "tiny", defines = { T = "double" }, block = {32}, grid = {2} },
}
