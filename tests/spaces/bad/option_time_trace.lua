-- expect: options[1]: option '--time=cutune_pwned_time.csv' is not one a space may pass to NVRTC (it writes files); allowed: -D
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  options = { "--time=cutune_pwned_time.csv" },
}
