-- Fixture for tests/cli_compile_batch.sh: 12 configurations, the 4 with WORDS >= 16384 over the
-- 48 KB of static shared memory (batch_smem.cu).
local ct = require "cutune"
return ct.space {
  name = "batch_smem",
  template = "batch_smem.cu",
  kernel = "smem_k",
  params = { ct.param("WORDS", {512, 16384, 1024, 2048, 32768, 4096}), ct.param("B", {64, 128}) },
  problem = { n = 4096 },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "smem_k_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
}
