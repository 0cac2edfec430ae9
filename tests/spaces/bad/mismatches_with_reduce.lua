-- expect: ct.output options: mismatches = 2 with reduce = "sum" (mismatches counts the elements an element-wise check lets differ; a reduce check compares one value)
local ct = require "cutune"
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", 2, {reduce = "sum", mismatches = 2}), ct.input("float", "N") }, --@
  block = {32},
  grid = {2},
}
