-- expect-edit: template_edit failed for TILE=32,U=2: tests/spaces/bad/edit_raises.lua:9: no unrolling by 2
-- A generator (function(text, p): a program per configuration) that raises for one of them.
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  template_edit = function(text, p) --@
    if p.TILE == 32 and p.U == 2 then
      error("no unrolling by " .. p.U)
    end
    return text
  end,
  params = { ct.param("TILE", {16, 32}), ct.param("U", {1, 2}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
