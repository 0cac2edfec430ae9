-- Fixture for tests/cli_fake_hgemm.sh: a bfloat16 GEMM through the fake libcuda (which emulates
-- hgemm_fake by name, fake_hgemm.cu) with the tolerance of lua/hgemm.lua, so that the bf16 fill,
-- the bf16 comparison and the tolerance's two promises are checked without a GPU: V = 0 (float
-- accumulation) and V = 1 (every addition truncated) pass; V = 2 (a k16 step missing), V = 3 (one
-- k missing from every element) and V = 4 (the bf16 output 8 ulps off in one element) do not.
-- W = 1 stands for a configuration that needs sm_90a (the space's arch). Run from the top of the
-- tree (require "hgemm" finds lua/hgemm.lua there).
local ct = require "cutune"
local hgemm = require "hgemm"
local K = 4096
return ct.space {
  name = "fake_hgemm",
  template = "fake_hgemm.cu",
  kernel = "hgemm_fake",
  params = { ct.param("W", {0, 1}), ct.param("V", {0, 1, 2, 3, 4}, {runtime = true}) },
  arch = function(p) if p.W == 1 then return "sm_90a" end end,
  problems = { {M = 32, N = 24, K = K} },
  args = {
    ct.inout("float", "M*N", {name = "C"}),
    ct.input("bf16", "M*K", {name = "A"}),
    ct.input("bfloat16", "K*N", {name = "B"}),
    ct.scalar("int", "M"), ct.scalar("int", "N"), ct.scalar("int", "K"),
    ct.scalar("float", 1.0, {name = "alpha"}), ct.scalar("float", 0.5, {name = "beta"}),
    ct.scalar("int", "V"),
    ct.output("bf16", "M*K", {name = "Acopy"}),
  },
  block = function(p, n) return 32 end,
  grid = function(p, n) return ct.cdiv(n.N, 32), n.M end,
  reference = { kernel = "hgemm_fake_ref", block = {32}, grid = function(n) return ct.cdiv(n.N, 32), n.M end },
  check = { tolerance = hgemm.tolerance(K) },
  flops = function(n) return 2 * n.M * n.N * n.K end,
  cublas_gemmex = function(n) return n.M, n.N, n.K, "bf16" end,
  timeout = 60,
}
