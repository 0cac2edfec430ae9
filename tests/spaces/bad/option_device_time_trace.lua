-- expect: options[2]: option '--fdevice-time-trace=cutune_pwned_trace.json' is not one a space may pass to NVRTC
local ct = require "cutune"
return ct.space { --@
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  options = { "-DX=1", "--fdevice-time-trace=cutune_pwned_trace.json" },
}
