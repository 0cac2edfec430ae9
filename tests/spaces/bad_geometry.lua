-- Fixture for tests/cli_inputs.sh: B = 2048 is over the 1024 threads of a block; its message
-- must appear whole under the table (the table cuts it).
local ct = require "cutune"
return ct.space {
  template = "partly_broken.cu",
  kernel = "scale",
  params = { ct.param("X", {1}), ct.param("B", {64, 2048}) },
  problems = { {n = 4096} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "scale_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
}
