-- expect: template_edit must be a function(text) or function(text, p) returning the program's text (got string)
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  template_edit = "text",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
