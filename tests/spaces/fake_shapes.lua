-- Fixture for tests/cli_shapes_run.sh: a shape set the fake libcuda.so.1 (tests/fake) can "run".
-- The fake times copy_shaped by its block size B against the size n (best at n / 256 threads,
-- 32 .. 1024), so the winner moves with the shape; U and X change nothing but the compile (every
-- configuration is its own kernel). 48 configurations, 6 shapes from one ct.product.
local ct = require "cutune"
return ct.space {
  name = "fake_shapes",
  template = "fake_shapes.cu",
  kernel = "copy_shaped",
  params = { ct.param("B", {32, 64, 128, 256, 512, 1024}), ct.param("U", {1, 2}), ct.param("X", {0, 1, 2, 3}) },
  problems = ct.product{n = {8192, 16384, 65536, 131072, 262144, 1048576}},
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  bytes = function(n) return 8 * n.n end,
  timeout = 60, -- the fake "GPU" is the CPU of a loaded CI machine (see fake_run.lua)
}
