-- Fixture for tests/cli_fake_runtime.sh: runtime parameters. R reaches the kernel as its 4th
-- argument (a scalar whose size expression reads it), S through function(n, p); neither is a
-- -D, so the 12 configurations (U x R x S) compile to 2 modules (one per U). The fake libcuda's
-- copy_rt is correct only when its 4th argument is 2: the R=2 configurations pass (4 of 12).
local ct = require "cutune"
return ct.space {
  name = "fake_runtime",
  template = "fake_runtime.cu",
  kernel = "copy_rt",
  params = {
    ct.param("U", {1, 2}),
    ct.param("R", {1, 2, 3}, {runtime = true}),
    ct.param("S", {0, 5}, {runtime = true}),
  },
  problems = { {n = 4096} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n"), ct.scalar("int", "R"),
           ct.scalar("int", function(n, p) return p.S * 2 end) },
  block = function(p, n) return 128 end,
  grid = function(p, n) return ct.cdiv(n.n, 128) end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  bytes = function(n) return 8 * n.n end,
  timeout = 60, -- see fake_run.lua
}
