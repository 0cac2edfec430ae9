-- Fixture for tests/cli_fake_space_error.sh: a space whose grid function raises for every one of
-- its 40 configurations (the same mistake everywhere): a run stops handing out configurations
-- once its first 16 records all failed in the space's own code.
local ct = require "cutune"
return ct.space {
  name = "fake_space_error_all",
  template = "fake_run.cu",
  kernel = "copy_ok",
  params = { ct.param("B", {32, 64, 128, 256, 512}), ct.param("U", {1, 2, 4, 8}), ct.param("W", {1, 2}) },
  problems = { {n = 4096} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.N, p.B) * p.W end, -- the mistake: the size is n.n
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  timeout = 60,
}
