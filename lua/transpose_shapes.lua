-- The transpose shape set: the space of lua/transpose_space.lua (`require "transpose_space"`:
-- one name, one template, one store and header) over the sizes the committed header is tuned
-- on (bench/shapes_session.sh): square powers of two, wide and tall, and odd sizes whose rows
-- are no multiple of the vector width (12345 x 6789, 5555 x 3333, 4097 x 4097: issue 20's), from
-- L2-resident to 1 GiB. The problem is N rows of M columns in (M x N out). transpose_space.lua
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
}
return ct.space(spec)
