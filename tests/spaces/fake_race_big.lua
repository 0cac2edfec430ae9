-- Fixture for tests/cli_fake_race_early.sh: fake_race_early.lua's long launches on a problem
-- whose buffers (128 MB) are over twice the fake's 50 MB L2, so that samples are timed in
-- batches between consecutive events without an L2 flush: the path where each chunk of samples
-- needs a lead that keeps the GPU busy while the host enqueues it (docs/MEASURE.md step 3).
local ct = require "cutune"
local base = require "fake_race_early"

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.name = "fake_race_big"
spec.problems = { {n = 16777216} }
return ct.space(spec)
