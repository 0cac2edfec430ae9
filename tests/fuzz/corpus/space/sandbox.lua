-- What the sandbox allows (each assert fails the load, with this file's line, if not).
local ct = require "cutune"
assert(require "cutune" == ct, "require caches modules")
assert(string.format("%d-%s", 3, "x") == "3-x" and ("abc"):upper() == "ABC")
assert(table.concat({1, 2, 3}, ",") == "1,2,3" and math.floor(2.5) == 2 and utf8.len("héllo") == 5)
assert(type(os.clock()) == "number" and type(os.time()) == "number" and type(os.date("%Y")) == "string")
assert(os.getenv("CUTUNE_NO_SUCH_VARIABLE") == nil)
assert(load("return 1 + 1")() == 2, "text chunks load")
local ok, msg = pcall(function() return io.open("x", "w") end)
assert(not ok and msg:find("io.open is not available"), "io.open is denied")
ok, msg = pcall(function() return os.execute end)
assert(not ok and msg:find("os.execute is not available"), "os.execute is denied")
assert(string.dump == nil, "no string.dump")
ok = pcall(require, "io")
assert(not ok, "require of a standard library is refused")
local env_ok = pcall(load("return io.popen"))
assert(not env_ok, "chunks from load() run in the sandbox too")
x_global = 42 -- globals of a space stay in its sandbox
return ct.space {
  template = "tests/spaces/tiny.cu",
  kernel = "tiny",
  params = { ct.param("V", ct.range(10, 1, -3)) },   -- 10 7 4 1
  problem = { N = 100 },
  args = { ct.output("float", "N"), ct.scalar("int", function(n) return x_global end) },
  block = function(p) return p.V end,
  grid = function(p, n) return ct.cdiv(n.N, p.V) end,
}
