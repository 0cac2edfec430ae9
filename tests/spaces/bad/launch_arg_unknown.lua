-- expect: launches[1].args[2]: string "q" is not an argument of args (its names: o, x;
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N", {name = "o"}), ct.input("float", "N", {name = "x"}) },
  launches = { ct.launch { kernel = "tiny", args = {"o", "q"}, block = {32}, grid = {2} } },
}
