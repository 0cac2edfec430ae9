-- expect: launches[1] is the configuration's own kernel: it takes no defines
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N", {name = "o"}) },
  launches = { ct.launch { kernel = "tiny", defines = {TILE = 1}, args = {"o"}, block = {32}, grid = {2} } }, --@
}
