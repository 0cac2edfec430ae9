-- expect: reference.params[1]: string "NOPE" is not a parameter of the space
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  reference = { kernel = "tiny", params = {"NOPE"}, block = {32}, grid = {2} },
}
