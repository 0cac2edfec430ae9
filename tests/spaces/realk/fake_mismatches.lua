-- Fixture for tests/cli_fake_realk.sh: an output allowed to differ from the reference in a few
-- elements (mismatches). The grid is one block short, so a configuration leaves its last B of
-- n = 4096 elements unwritten (poisoned): B = 64, 128 or 256 elements differ. mismatches from
-- $FAKE_MM_OUTPUT (the output's option) and $FAKE_MM_SPACE (check.mismatches), each left out
-- when unset.
local ct = require "cutune"
local out, all = tonumber(os.getenv("FAKE_MM_OUTPUT")), tonumber(os.getenv("FAKE_MM_SPACE"))
return ct.space {
  name = "fake_mismatches",
  template = "fake_cxx.cu",
  kernel = "ns::copy_tpl<1>",
  params = { ct.param("B", {64, 128, 256}) },
  problem = { n = 4096 },
  args = { ct.output("float", "n", {mismatches = out}), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) - 1 end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = all and { mismatches = all } or nil,
  timeout = 60,
}
