-- The BF16 tensor-core GEMM shape set: the space of lua/hgemm_space.lua (its parameters,
-- constraints, launch, reference, baseline: the same `require "hgemm"`, so the two cannot drift
-- apart) over the SGEMM shape list of bench/shapes.txt (issue 20's sizes and real workloads) and
-- shapes between them, for `cutune run` with transfer and the cross-measurement, and `cutune
-- header`'s kernel set and rule for untuned sizes (docs/SPACE.md, "Shape sets"; docs/HEADER.md).
-- Same name ("hgemm") and template: one store, one header. lua/hgemm_space.lua keeps its three
-- problems and its default run (the judged one); this file is the set the committed header is
-- tuned on. K stays at 16384 at most, the longest of hgemm_space.lua, so the tolerance (16 u Kmax,
-- lua/hgemm.lua) is the same: a looser one would let a missing k-slice through at small K.
local ct = require "cutune"
local hgemm = require "hgemm"
local base = hgemm.space("bf16")

local problems = {
  {M = 4096, N = 4096, K = 4096},    -- first: the anchor (the store holds its long search)
  {M = 1000, N = 1003, K = 999},     -- hgemm_space.lua's other two
  {M = 256, N = 256, K = 16384},
  -- bench/shapes.txt's SGEMM list (512 x 512 x 32768 as 512 x 512 x 16384: see above)
  {M = 8192, N = 8192, K = 8192},
  {M = 6144, N = 6144, K = 6144},
  {M = 2048, N = 2048, K = 2048},
  {M = 3000, N = 3000, K = 3000},
  {M = 512, N = 512, K = 512},
  {M = 1100, N = 1284, K = 1060},
  {M = 1024, N = 8192, K = 2048},
  {M = 8192, N = 8192, K = 256},
  {M = 16384, N = 128, K = 4096},
  {M = 4096, N = 12288, K = 4096},
  {M = 4096, N = 11008, K = 4096},
  {M = 4096, N = 4096, K = 11008},
  {M = 2048, N = 3072, K = 768},
  {M = 2048, N = 768, K = 3072},
  {M = 128, N = 4096, K = 4096},
  {M = 256, N = 256, K = 256},
  {M = 128, N = 128, K = 1024},
  {M = 32768, N = 256, K = 256},
  {M = 256, N = 32768, K = 512},
  {M = 512, N = 512, K = 16384},
  {M = 4097, N = 4097, K = 4097},
  {M = 777, N = 1111, K = 555},
  -- between them: squares, decode rows, small K, wide and tall
  {M = 1024, N = 1024, K = 1024},
  {M = 1536, N = 1536, K = 1536},
  {M = 768, N = 768, K = 768},
  {M = 512, N = 4096, K = 4096},
  {M = 32, N = 4096, K = 4096},
  {M = 4096, N = 4096, K = 1024},
  {M = 8192, N = 1024, K = 2048},
  {M = 2048, N = 8192, K = 8192},
  {M = 4096, N = 4096, K = 256},
}

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.problems = problems
return ct.space(spec)
