-- map-form params (sorted by name), one problem, plain-table reference-free space
local ct = require "cutune"
return ct.space {
  template = "tests/spaces/tiny.cu",
  kernel = "tiny",
  params = { TILE = {16, 32}, A = {1, 2, 3}, M = {7} },
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.input("float", "N"), ct.scalar("int", "N") },
  block = {128},
  grid = function(p, n) return ct.cdiv(n.N, 128) end,
}
