-- Fixture for tests/cli_compile_batch.sh: 8 configurations of a C++ kernel (batch_cxx.cu), which
-- a batched compile finds by their lowered (mangled) names.
local ct = require "cutune"
return ct.space {
  name = "batch_cxx",
  template = "batch_cxx.cu",
  kernel = "copy_ok",
  params = { ct.param("B", {64, 128, 256, 512}), ct.param("U", {1, 2}) },
  problems = { {n = 65536} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  timeout = 60,
}
