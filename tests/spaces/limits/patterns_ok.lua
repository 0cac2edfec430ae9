-- Everyday patterns pass the pattern guard, on subjects small and large.
local ct = require "cutune"
assert(("  x  "):match("^%s*(.-)%s*$") == "x")
assert(("a,b,,c"):gsub(",", ";") == "a;b;;c")
local big = string.rep("ab ", 100000)
assert(select(2, big:gsub("%s+", "")) == 100000)
assert(big:find("ab", 1, true) == 1)
assert(("").dump == nil and string.dump == nil)
return ct.space {
  template = "../tiny.cu",
  kernel = "tiny",
  params = { ct.param("TILE", {16, 32}) },
  problem = { N = 64 },
  args = { ct.output("float", "N") },
  block = {32},
  grid = {2},
  options = { "-DX=1", "-std=c++17", "--use_fast_math", "-maxrregcount=64", "-ftz=true", "-I." },
}
