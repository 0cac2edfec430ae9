-- Fixture for tests/cli_fake_data.sh: an inout buffer filled from a list (its count from the list),
-- which accumulate adds its input to: every configuration's check run must start from the list
-- (the buffer restored from the data, not from the seeded fill), as the reference's did.
-- $FAKE_ACC_HALF: the list's values halved (other data).
local ct = require "cutune"
local acc = {}
for i = 1, 4096 do acc[i] = (i % 13) * (os.getenv("FAKE_ACC_HALF") and 0.25 or 0.5) end
return ct.space {
  name = "fake_acc",
  template = "fake_data.cu",
  kernel = "accumulate",
  params = { ct.param("B", {64, 128, 256}) },
  problem = { n = 4096 },
  args = { ct.inout("float", nil, {name = "acc", values = acc}), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "accumulate", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  timeout = 60,
}
