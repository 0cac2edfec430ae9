-- A space for end-to-end runs under the fake driver (tests/fake/fake_libcuda.c): its kernel
-- and reference are named copy_ok, a name the fake emulates (a copy of `in` to `out`), so
-- every configuration checks `ok`. 12 configurations, one small problem.
local ct = require "cutune"

return ct.space {
  name = "fake_copy",
  template = "fake_copy.cu",
  kernel = "copy_ok",
  params = {
    ct.param("BLOCK", {64, 128, 256, 512}),
    ct.param("STRIDE", {1, 2, 3}),
  },
  problems = { {n = 1 << 16} },
  args = {
    ct.output("float", "n"),
    ct.input("float", "n"),
    ct.scalar("int", "n"),
  },
  block = function(p, n) return p.BLOCK end,
  grid = function(p, n) return ct.cdiv(n.n, p.BLOCK) end,
  reference = {
    kernel = "copy_ok",
    block = {256},
    grid = function(n) return ct.cdiv(n.n, 256) end,
  },
  check = { tolerance = 0 },
  bytes = function(n) return 2 * 4 * n.n end,
  objectives = { "time" },
  timeout = 30, -- per configuration: the fake emulates on the CPU, slow on a loaded 2-core machine
}
