-- Fixture for tests/cli_fake_tmap.sh: a ct.tensormap argument through the fake libcuda, whose
-- tmap_copy reads its input through the map it is passed (tests/fake/fake_libcuda.c): the copy is
-- right only when the map describes buffer 'in' with the problem's dims and strides, and its box
-- is {BOX, 2} (BOX a compile-time parameter read by a size expression). V = 1 declares the dims
-- swapped (a map that lies: wrong results on a non-square problem); the 13-column problem's rows
-- are 52 bytes, which no tensor map can stride: optional = true passes zeros there (the kernel's
-- fallback: a direct copy); the test also runs a copy of this file with `optional = false`.
local ct = require "cutune"
return ct.space {
  name = "fake_tmap",
  template = "fake_tmap.cu",
  kernel = "tmap_copy",
  params = { ct.param("BOX", {4, 8}), ct.param("V", {0, 1}, {runtime = true}) },
  problems = { {M = 64, N = 32}, {M = 16, N = 13} },
  args = {
    ct.output("float", "M*N", {name = "out"}),
    ct.input("float", "M*N", {name = "in"}),
    ct.tensormap { buffer = "in", dtype = "float",
                   dims = function(p, n) if p.V == 1 then return {n.M, n.N} end return {n.N, n.M} end,
                   box = {"BOX", 2}, swizzle = 0, optional = true, name = "map" },
    ct.scalar("int", "M"), ct.scalar("int", "N"), ct.scalar("int", "BOX + 0*V"),
  },
  block = function(p, n) return 64 end,
  grid = function(p, n) return ct.cdiv(n.M * n.N, 64) end,
  reference = { kernel = "tmap_ref", block = {64}, grid = function(n) return ct.cdiv(n.M * n.N, 64) end },
  timeout = 60,
}
