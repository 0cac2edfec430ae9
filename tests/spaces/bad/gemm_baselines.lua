-- expect: cublas_sgemm and cublas_gemmex are two baselines: give one
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  cublas_sgemm = function(n) return 64, 64, 64 end,
  cublas_gemmex = function(n) return 64, 64, 64, "bf16" end,
}
