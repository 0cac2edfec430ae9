-- Fixture for tests/cli_fake_realk.sh: a launch sequence timed as one configuration, a
-- reduction's two passes. Pass 1 (partial_sum, G blocks) writes G partial sums into `partial`,
-- whose size is a function of the configuration (one per block); pass 2 (the same kernel, one
-- block, in a program of its own: defines) sums them into out[0]. The reference (total_sum, its
-- own arguments by name) writes the total: every G passes. $FAKE_SEQ_BAD: pass 2's block is over
-- the device's limit (invalid).
local ct = require "cutune"
local bad = os.getenv("FAKE_SEQ_BAD") ~= nil
return ct.space {
  name = "fake_seq",
  template = "fake_cxx.cu",
  params = { ct.param("G", {8, 16, 64}) },
  problem = { n = 65536 },
  args = {
    ct.output("float", 1, {name = "out", rtol = 1e-5}),
    ct.output("float", function(n, p) return p.G end, {name = "partial", check = false}),
    ct.input("float", "n", {name = "in", lo = 0, hi = 1}),
    ct.scalar("int", "n", {name = "n"}),
    ct.scalar("int", function(n, p) return p.G end, {name = "nparts"}),
  },
  launches = {
    ct.launch { kernel = "partial_sum", args = {"partial", "in", "n"}, block = {256}, grid = function(p, n) return p.G end },
    ct.launch { kernel = "partial_sum", defines = { PASS = 2 }, args = {"out", "partial", "nparts"},
                block = bad and {2048} or {256}, grid = {1} },
  },
  reference = { kernel = "total_sum", args = {"out", "in", "n"}, block = {256}, grid = {1} },
  timeout = 60,
}
