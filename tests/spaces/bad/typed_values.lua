-- expect: ct.input options: a buffer typed by the configuration takes the seeded fill
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("T", {"float", "half"}) },
  problem = { N = 4 },
  args = { ct.output("float", "N"), ct.input(function(p) return p.T end, "N", {values = {1, 2, 3, 4}}) }, --@
  block = {32},
  grid = {2},
  check = false,
}
