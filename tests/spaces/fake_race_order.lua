-- Fixture for tests/cli_fake_race.sh: the order of a whole-space walk. The space of
-- fake_race.lua (`require`: its kernel copy_race, 1024/B times as long at block B, problem,
-- arguments, launch, reference and check) with B smallest first and six values of U, so the
-- enumeration walks the slowest configurations first and each block size beats the one before:
-- in that order every configuration is within the margin of the table of the best when it comes
-- and is timed in full. The default walk (a seeded random order) meets fast ones early and
-- races most of the rest.
local ct = require "cutune"
local base = require "fake_race"

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.name = "fake_race_order"
spec.params = { ct.param("B", {64, 128, 256, 512, 1024}), ct.param("U", {1, 2, 3, 4, 5, 6}) }
return ct.space(spec)
