-- Fixture for tests/cli_fake_realk.sh: a check kernel of the space's own (check.kernel, compiled
-- once with -DCUTUNE_CHECK=1): user_check accepts an output twice the reference's, so only
-- copy_tpl<2> passes against copy_ref.
local ct = require "cutune"
return ct.space {
  name = "fake_usercheck",
  template = "fake_cxx.cu",
  kernel = "ns::copy_tpl<K>",
  params = { ct.param("K", {1, 2}) },
  problem = { n = 4096 },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = {128},
  grid = function(p, n) return ct.cdiv(n.n, 128) end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { kernel = "user_check" },
  timeout = 60,
}
