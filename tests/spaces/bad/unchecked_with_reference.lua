-- expect: check = false (timing only) and a reference: leave one out
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  check = false,
  reference = { kernel = "tiny", block = {32}, grid = {2} },
}
