-- A small space exercising most keys; tests/test_space.c checks its numbers by brute force.
local ct = require "cutune"
local h = require "helpers"
return ct.space {
  name = "good",
  template = "tiny.cu",
  kernel = "tiny",
  params = {
    ct.param("TILE", ct.pow2(8, 64)),        -- 8 16 32 64
    ct.param("ROWS", ct.range(1, 8)),        -- 1..8
    ct.param("VEC", {1, 2, 4}),
    ct.param("PAD", {0, 1, 2}),
    ct.param("UNROLL", {false, true}),
  },
  constraints = {
    ct.rule({"TILE", "ROWS"}, function(p) return h.multiple_of(p.TILE, p.ROWS) end, "rows divide the tile"),
    ct.rule({"TILE", "VEC"}, function(p) return p.TILE // p.VEC >= 4 end),
    ct.rule({"PAD", "VEC", "UNROLL"}, function(p) return p.PAD == 0 or p.VEC == 1 or p.UNROLL == 1 end),
  },
  problems = { {N = 1000, M = 300}, {N = 4096, M = 4096} },
  args = {
    ct.output("float", "N*M"),
    ct.input("double", function(n) return n.N + 1 end, {fill = "iota", name = "src"}),
    ct.inout("uint8", 7, {fill = "zero"}),
    ct.scalar("int", "N"),
    ct.scalar("float", "math.max(N, M) / 2"),
    ct.scalar("int64", function(n) return n.N * n.M * 1000 end),
  },
  block = function(p, n) return p.TILE // p.VEC, p.ROWS end,
  grid = function(p, n) return ct.cdiv(n.M, p.TILE), ct.cdiv(n.N, p.TILE) end,
  shared = function(p, n) return p.TILE * (p.TILE + p.PAD) * 4 end,
  reference = { kernel = "tiny_ref", block = {32, 8}, grid = function(n) return ct.cdiv(n.M, 32), ct.cdiv(n.N, 8) end },
  check = { tolerance = 1e-5 },
  bytes = function(n) return 2 * 4 * n.N * n.M end,
  flops = "N*M",
  objectives = { "time", "energy", {"regs", "min"}, {"gbps", "max"} },
  options = { "-std=c++17", "--use_fast_math" },
  timeout = 5,
}
