-- The transpose shape set: the space of lua/transpose_space.lua (`require "transpose_space"`:
-- one name, one template, one store and header) over the sizes the committed header is tuned
-- on (bench/shapes_session.sh): square powers of two, wide and tall, and odd sizes whose rows
-- are no multiple of the vector width (12345 x 6789, 5555 x 3333, 4097 x 4097: issue 20's), from
-- L2-resident to 1 GiB, and the mid sizes between them. The problem is N rows of M columns in (M x N out). transpose_space.lua
-- keeps its three problems and its default run. bench/shapes_unseen.txt holds sizes in neither.
local ct = require "cutune"
local base = require "transpose_space"

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.problems = {
  {N = 8192, M = 8192},   -- first: the anchor, searched cold
  {N = 4096, M = 4096},
  {N = 16384, M = 16384},
  {N = 2048, M = 8192},
  {N = 8192, M = 2048},
  {N = 1024, M = 1024},
  {N = 1000, M = 3002},
  {N = 12345, M = 6789},
  {N = 5555, M = 3333},
  {N = 4097, M = 4097},
  {N = 32768, M = 1024},
  {N = 1024, M = 32768},
  -- added on 2026-12-03: the 4-40 MB between 1024^2 and 4096^2, where a copy takes 5-20 us and
  -- the nearest tuned shape was a factor of 4 away; narrow and wide rows (512 floats: 2 KB)
  {N = 2048, M = 2048},
  {N = 2000, M = 3000},
  {N = 2731, M = 2731},
  {N = 8192, M = 512},
  {N = 512, M = 8192},
  {N = 1500, M = 7000},
  {N = 7001, M = 1501},
}
return ct.space(spec)
