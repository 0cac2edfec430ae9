-- Fixture for tests/cli_fake_run.sh: a space the fake libcuda.so.1 (tests/fake) can "run".
-- The fake emulates kernels by name (copy_ok, copy_ref: out[i] = in[i] for the threads the
-- grid launches), so the kernel's code does not matter there; the geometry does: COVER = 0
-- launches one block too few, which leaves poisoned outputs (wrong_result). 12 configurations,
-- 6 of them correct; two problems.
local ct = require "cutune"
return ct.space {
  name = "fake_run",
  template = "fake_run.cu",
  kernel = "copy_ok",
  params = { ct.param("B", {64, 128, 256}), ct.param("COVER", {0, 1}), ct.param("U", {1, 2}) },
  problems = { {n = 65536}, {n = 4096} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) - 1 + p.COVER end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  bytes = function(n) return 8 * n.n end,
  -- The fake "GPU" is the CPU: on a loaded 2-core CI machine a worker starved of CPU did not
  -- answer within the default 10 s and one configuration came back as a timeout (seen in a
  -- fresh-clone CI run, 2026-12-01). Nothing here tests the GPU timeout.
  timeout = 60,
}
