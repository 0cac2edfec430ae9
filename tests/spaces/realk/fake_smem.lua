-- Fixture for tests/cli_fake_realk.sh: static shared memory past 48 KB in the space's kernel, the
-- second entry of its program (fake_smem.cu): WORDS = 16384 is recorded invalid with the kernel
-- and its bytes named, at compile time (compile-only too), and the run's status stays 0.
local ct = require "cutune"
return ct.space {
  name = "fake_smem",
  template = "fake_smem.cu",
  kernel = "smem_big",
  params = { ct.param("WORDS", {1024, 16384}) },
  problem = { n = 4096 },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return 128 end,
  grid = function(p, n) return ct.cdiv(n.n, 128) end,
  reference = { kernel = "smem_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  timeout = 60,
}
