-- expect: params.PAD must be a non-empty list of integers (got string "1" at position 2)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = {
    ct.param("TILE", {16}),
    ct.param("PAD", {0, "1"}), --@
  },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
