-- Fixture for tests/cli_fake_cublas.sh: fake_run's copy kernel (the fake libcuda emulates it
-- by name) dressed as a GEMM space: it gives flops and a cuBLAS SGEMM baseline, so the tables
-- show TFLOP/s and % cuBLAS. 6 configurations, all correct; one problem.
local ct = require "cutune"
return ct.space {
  name = "fake_gemm",
  template = "fake_run.cu",
  kernel = "copy_ok",
  params = { ct.param("B", {64, 128, 256}), ct.param("U", {1, 2}) },
  problems = { {n = 65536, M = 512, N = 256, K = 128} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  flops = function(n) return 2 * n.M * n.N * n.K end,
  cublas_sgemm = function(n) return n.M, n.N, n.K end,
  timeout = 60, -- the fake emulates on the CPU: slow on a loaded 2-core machine (fake_run.lua)
}
