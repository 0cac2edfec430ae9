-- expect: init[2].defines differ from init[1]'s: the init launches are one program, so give them all the same defines
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N", {name = "o"}), ct.inout("float", "N", {name = "x"}) },
  init = { ct.launch { kernel = "tiny", args = {"x"}, block = {32}, grid = {2}, defines = { TILE = 16 } },
           ct.launch { kernel = "tiny", args = {"x"}, block = {32}, grid = {2}, defines = { TILE = 32 } } }, --@
  block = {32},
  grid = {2},
}
