-- expect-geometry: block failed for TILE=16 on problem N=64: tests/spaces/bad/loop_in_block.lua:10: the space's Lua code ran more than 1e+07 instructions
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = function(p) --@
    while true do end
  end,
  grid = {2},
}
