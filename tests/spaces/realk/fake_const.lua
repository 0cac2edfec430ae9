-- Fixture for tests/cli_fake_realk.sh: a __constant__ array filled from a Lua table per problem
-- (zeros: copy_const is then a copy and passes; $FAKE_ONES: ones, and it fails).
local ct = require "cutune"
local v = {}
for i = 1, 16 do v[i] = os.getenv("FAKE_ONES") and 1 or 0 end
local file = os.getenv("FAKE_CONST_FILE") -- a .npy or raw file instead of the table
return ct.space {
  name = "fake_const",
  template = "fake_cxx.cu",
  kernel = "copy_const",
  params = { ct.param("B", {64, 128}) },
  problem = { n = 4096 },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  symbols = { file and ct.symbol("c_add", "float", {file = file}) or ct.symbol("c_add", "float", {values = v}) },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  timeout = 60,
}
