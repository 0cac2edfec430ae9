-- expect: attempt to perform arithmetic on a nil value (field 'PAD')
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16}), ct.param("PAD", {0, 1}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  constraints = {
    ct.rule({"TILE"}, function(p) return p.TILE + p.PAD > 0 end), --@
  },
}
