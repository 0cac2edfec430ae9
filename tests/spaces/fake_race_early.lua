-- Fixture for tests/cli_fake_race_early.sh: racing before --top configurations are timed in full
-- (docs/MEASURE.md "Racing"), on long launches: the space of fake_race.lua (`require`: its
-- problem, arguments, launch, reference and check) with the fake's copy_race_long, which takes
-- 2 ms x 1024/B per launch. The walk's order gives 2 ms (B = 1024: the best, first), then 32,
-- 2.7, 16, 4 and 8 ms: against 3 x the best (6 ms) B = 64 loses on its check launch (over 4
-- times that bound: 1 sample), B = 128 after 2 samples (over twice), B = 256 after 3; 768 and
-- 512 are timed in full.
local ct = require "cutune"
local base = require "fake_race"

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.name = "fake_race_early"
spec.template = "fake_race_long.cu" -- one kernel: the configurations compile in one batch, in order
spec.kernel = "copy_race_long"
spec.params = { ct.param("B", {1024, 64, 768, 128, 512, 256}) }
return ct.space(spec)
