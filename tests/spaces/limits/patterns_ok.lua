-- Everyday patterns pass the pattern guard, on subjects small and large.
local ct = require "cutune"
assert(("  x  "):match("^%s*(.-)%s*$") == "x")
assert(("a,b,,c"):gsub(",", ";") == "a;b;;c")
local big = string.rep("ab ", 100000)
assert(select(2, big:gsub("%s+", "")) == 100000)
assert(big:find("ab", 1, true) == 1)
assert(("").dump == nil and string.dump == nil)
-- a template engine's placeholder on a 20 KB template: its repetitions are followed by what they
-- cannot match (spaces, then a name, then spaces, then "}"), so each costs its run once
local tpl = string.rep("  out[i] = in[i] * {{ factor }} + {{offset_2}};\n", 400)
local edited, subs = tpl:gsub("{{%s*([%w_]+)%s*}}", "%1")
assert(subs == 800 and edited:find("factor + offset_2", 1, true))
-- an optional item is tried twice, not once per position: fine on 700 KB
assert(select(2, string.rep("colour color ", 50000):gsub("colou?r", "c")) == 100000)
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
