-- Fixture for tests/cli_inputs.sh: a small space where everything compiles.
local ct = require "cutune"
return ct.space {
  name = "small_ok",
  template = "partly_broken.cu",
  kernel = "scale",
  params = { ct.param("X", {1}), ct.param("B", {64, 128}) },
  problems = { {n = 4096} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "scale_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
}
