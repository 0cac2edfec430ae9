-- expect: params.TILE must be a non-empty list of integers or of strings (got string
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = {
    ct.param("TILE", "16,32"), --@
  },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
