-- Fixture for tests/cli_inputs.sh: the kernel is its own reference and reads the parameter B,
-- which the template leaves undefined: cutune's error says to give it as reference.defines.
local ct = require "cutune"
return ct.space {
  template = "ref_undef.cu",
  kernel = "scale",
  params = { ct.param("B", {64, 128}) },
  problems = { {n = 4096} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "scale", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
}
