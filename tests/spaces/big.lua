-- 1,000,000 raw combinations (10^6) with constraints at several depths: must enumerate fast
local ct = require "cutune"
local vals = ct.range(1, 10)
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = {
    ct.param("A", vals), ct.param("B", vals), ct.param("C", vals),
    ct.param("D", vals), ct.param("E", vals), ct.param("F", vals),
  },
  constraints = {
    ct.rule({"A", "B"}, function(p) return (p.A + p.B) % 3 ~= 0 end),
    ct.rule({"C", "D"}, function(p) return p.C <= p.D end),
    ct.rule({"A", "E"}, function(p) return p.A * p.E < 60 end),
    ct.rule({"B", "F"}, function(p) return (p.B ~ p.F) & 1 == 0 end),
  },
  problem = { N = 1024 },
  args = { ct.output("float", "N") },
  block = function(p) return 32 * p.A end,
  grid = {1},
}
