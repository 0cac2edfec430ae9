-- expect: space is missing required key 'problems' (or 'problem')
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
