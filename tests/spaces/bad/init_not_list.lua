-- expect: init must be a list of 1 to 4 ct.launch { kernel = ..., args = ..., block = ..., grid = ... } (got number 5)
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  init = 5,
  block = {32},
  grid = {2},
}
