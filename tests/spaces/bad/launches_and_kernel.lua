-- expect: give either launches or kernel
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N", {name = "o"}) },
  launches = { ct.launch { kernel = "tiny", args = {"o"}, block = {32}, grid = {2} } },
}
