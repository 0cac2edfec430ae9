-- tests/cli_compile_cccl.sh: cub_sum.cu includes <cub/cub.cuh>; INC (the environment) names the
-- options: none (NVRTC refuses the umbrella header's host code), "inc" (the folder beside this
-- file, whose cub/cub.cuh shadows the toolkit's) or a folder that exists nowhere.
local ct = require "cutune"
local inc = os.getenv("INC")
return ct.space {
  name = "cub_sum",
  template = "cub_sum.cu",
  kernel = "cub_sum",
  params = { ct.param("BX", {64, 128, 256}) },
  problem = { n = 5000, m = 3 },
  args = {
    ct.scalar("int", "n"), ct.scalar("int", "m"),
    ct.inout("float", "n", {name = "data"}),
    ct.output("double", function(n, p) return ct.cdiv(n.n, p.BX) end,
              {name = "partial", fill = "zero", reduce = "sum", rtol = 1e-12}),
  },
  block = function(p) return p.BX end,
  grid = function(p, n) return ct.cdiv(n.n, p.BX) end,
  options = inc and inc ~= "" and { "-I" .. inc } or nil,
  reference = { kernel = "cub_sum", block = {256}, grid = function(n) return ct.cdiv(n.n, 256) end,
                defines = { BX = 256 } },
}
