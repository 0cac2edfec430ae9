-- expect: ct.param("T") options: a runtime parameter is a scalar argument's value: its values must be integers
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("T", {"half", "float"}, {runtime = true}) }, --@
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
