-- expect: /dev/zero: the template is not a regular file
local ct = require "cutune"
return ct.space { --@
  template = "/dev/zero",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
