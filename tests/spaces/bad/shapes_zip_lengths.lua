-- expect: ct.zip: every list must have the same length (M has 2, N has 1)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = { {N = 3}, ct.zip{M = {1, 2}, N = {1}} }, --@
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
