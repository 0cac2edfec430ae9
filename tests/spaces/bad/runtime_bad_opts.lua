-- expect: unknown field 'runtim' in ct.param("R") options (expected one of: runtime)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}),
    ct.param("R", {1, 2}, {runtim = true}) }, --@
  problem = { N = 64 },
  args = { ct.output("float", "N"), ct.scalar("int", "R") },
  block = {32},
  grid = {2},
}
