-- expect: block of init[1] on problem N=64 is (0): each dimension must be an integer in 1..1024
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N", {name = "o"}), ct.inout("float", "N", {name = "x"}) },
  init = { ct.launch { kernel = "tiny", args = {"x"}, grid = {2},
                       block = function(n) return n.N - 64 end } }, --@
  block = {32},
  grid = {2},
}
