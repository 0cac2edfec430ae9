-- Fixture for tests/cli_fake_race.sh: racing through the fake libcuda.so.1 (tests/fake). The
-- fake's copy_race takes 1024/B times as long at block B, so only B = 1024 is fast; B comes
-- first and largest first, so the exhaustive walk times the two fast configurations (U = 1, 2)
-- first and every later one is at least twice as slow: raced out with --top 2. fake_race_early.lua
-- requires it (its long-launch twin).
local ct = require "cutune"
return ct.space {
  name = "fake_race",
  template = "fake_race.cu",
  kernel = "copy_race",
  params = { ct.param("B", {1024, 512, 256, 128, 64}), ct.param("U", {1, 2}) },
  problems = { {n = 1048576} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  bytes = function(n) return 8 * n.n end,
  timeout = 60, -- the fake "GPU" is the CPU of a loaded CI machine
}
