-- Fixture for tests/cli_fake_realk.sh: a templated kernel in a namespace, its template argument a
-- parameter (a -D macro in the program), C++ names without extern "C"; B = 2048 is over the
-- device's 1024 threads per block (recorded invalid, not a failure). K values from $FAKE_K.
local ct = require "cutune"
local ks = os.getenv("FAKE_K") == "1" and {1} or {1, 2}
return ct.space {
  name = "fake_tpl",
  template = "fake_cxx.cu",
  kernel = "ns::copy_tpl<K>",
  params = { ct.param("K", ks), ct.param("B", {64, 128, 2048}) },
  problem = { n = 4096 },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = os.getenv("FAKE_REF_PER_CONFIG") and
    { kernel = "ns::copy_tpl<K>", params = {"K"}, block = {128}, grid = function(n, p) return ct.cdiv(n.n, 128) end }
    or { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  timeout = 60,
}
