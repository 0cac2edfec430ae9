-- Fixture for tests/cli_fake_launch.sh: a space the test edits (a copy of it) the way a user
-- changes how a space launches its kernel: its grid, its dynamic shared memory, its scalar
-- arguments. The fake libcuda.so.1 (tests/fake) runs copy_ok and copy_ref by name.
local ct = require "cutune"
return ct.space {
  name = "fake_launch",
  template = "fake_run.cu",
  kernel = "copy_ok",
  params = { ct.param("B", {64, 128}), ct.param("U", {1, 2}) },
  problems = { {n = 4096} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  timeout = 60,
}
