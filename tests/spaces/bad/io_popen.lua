-- expect: io.popen is not available in a space file
local ct = require "cutune"
local f = io.popen("ls") --@
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
