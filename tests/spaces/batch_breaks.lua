-- Fixture for tests/cli_compile_batch.sh: a template that compiles alone but not in a batch
-- (an extern "C" device function besides the kernel: every member defines the same C name),
-- so batching must turn itself off and every configuration still compile.
local ct = require "cutune"
return ct.space {
  name = "batch_breaks",
  template = "batch_breaks.cu",
  kernel = "scale",
  params = { ct.param("X", {1, 2, 3, 4}), ct.param("B", {64, 128}) },
  problems = { {n = 4096} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "scale_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
}
