-- expect: problems: the space would have 80000 problems (40000 of them from problems[1]), more than 65536: the cap on a space's problems (raise it with CUTUNE_MAX_PROBLEMS=N)
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problems = { ct.product{M = ct.range(1, 200), N = ct.range(1, 200)}, ct.product{M = ct.range(201, 400), N = ct.range(1, 200)} },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
