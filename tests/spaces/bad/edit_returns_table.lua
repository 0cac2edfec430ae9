-- expect-edit: template_edit returned table for TILE=16 (expected the program's text, a string)
-- A generator (function(text, p)) that returns a table of lines instead of the text.
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  template_edit = function(text, p) --@
    return { text, "// TILE " .. p.TILE }
  end,
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
