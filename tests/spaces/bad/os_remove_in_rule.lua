-- expect: os.remove is not available in a space file
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  constraints = {
    ct.rule({"TILE"}, function(p) return os.remove("x") == nil end), --@
  },
}
