-- expect: constraint 'explodes' failed with TILE=16: 
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  constraints = {
    ct.rule({"TILE"}, function(p) --@
      error("boom at " .. p.TILE)
    end, "explodes"),
  },
}
