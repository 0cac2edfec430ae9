-- expect: more than 100000 valid configurations (the cap; 1048576 raw combinations): add constraints, or raise the cap with CUTUNE_MAX_CONFIGS=N
local ct = require "cutune"
local v = {1, 2, 3, 4}
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { A = v, B = v, C = v, D = v, E = v, F = v, G = v, H = v, I = v, J = v },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
