-- expect: init[1].args[1]: string "state" is not an argument of args (its names: o, x;
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N", {name = "o"}), ct.inout("float", "N", {name = "x"}) },
  init = { ct.launch { kernel = "tiny", args = {"state"}, block = {32}, grid = {2} } },
  block = {32},
  grid = {2},
}
