-- expect: constraint 'spins' failed with TILE=16: tests/spaces/bad/loop_in_rule.lua:13: the space's Lua code ran more than
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
      while true do end
    end, "spins"),
  },
}
