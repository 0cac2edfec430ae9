-- The vector-add shape set: the space of lua/vecadd_space.lua (`require "vecadd_space"`: one
-- name, template, store and header) over the sizes the committed header is tuned on
-- (bench/shapes_session.sh): L2-resident to 1 GiB per array, ragged tails (n % 4 = 3, 1).
-- vecadd_space.lua keeps its four problems and its default run.
local ct = require "cutune"
local base = require "vecadd_space"

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.problems = {
  {n = 1 << 28},          -- first: the anchor, searched cold
  {n = 1 << 26},
  {n = 1 << 24},
  {n = (1 << 24) + 3},
  {n = 1 << 22},
  {n = 1 << 20},
  {n = 100000001},
}
return ct.space(spec)
