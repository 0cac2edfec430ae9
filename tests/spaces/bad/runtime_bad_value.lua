-- expect: is 300: not a valid uint8
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}), ct.param("R", {300, 2}, {runtime = true}) },
  problem = { N = 64 },
  args = { ct.output("float", "N"),
    ct.scalar("uint8", "R") }, --@
  block = {32},
  grid = {2},
}
