-- expect: os.execute is not available in a space file
local ct = require "cutune"
os.execute("touch cutune_pwned_marker") --@
return ct.space {
  template = "tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
}
