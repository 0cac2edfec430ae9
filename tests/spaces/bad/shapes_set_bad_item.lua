-- expect: problems[2] must be a non-empty table of sizes {N = 8192, ...} (got param)
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = { {N = 1}, ct.param("X", {1}) },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
