-- expect: params.T must be a non-empty list of strings, as its first value is (got number 2 at position 2)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("T", {"float", 2}) }, --@
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
