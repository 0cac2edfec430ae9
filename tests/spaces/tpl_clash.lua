-- Fixture for tests/cli_errors.sh: the space parameter BLOCK is also the name of a template
-- parameter in tpl_clash.cu, which the macro -DBLOCK replaces; renamed (sed in the test) it compiles.
local ct = require "cutune"
return ct.space {
  name = "tpl_clash",
  template = "tpl_clash.cu",
  kernel = "scale<BLOCK, float>",
  params = { ct.param("BLOCK", {64, 128}) },
  problem = { n = 4096 },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.BLOCK end,
  grid = function(p, n) return ct.cdiv(n.n, p.BLOCK) end,
  reference = { kernel = "scale_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
}
