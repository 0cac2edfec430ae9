-- expect: parameter name 'TILE SIZE' is not a C identifier
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = {
    ct.param("TILE SIZE", {16}), --@
  },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
