-- The fault-isolation fixture: ten configurations of a vector copy, two per MODE (see faulty.cu):
-- 0 correct, 1 wrong values, 2 illegal address, 3 hang, 4 launch failure (2048-thread block).
-- A run over this space must complete with each configuration recorded under its failure class.
local ct = require "cutune"

return ct.space {
  name = "faulty",
  template = "faulty.cu",
  kernel = "copy",
  params = {
    ct.param("MODE", {0, 1, 2, 3, 4}),
    ct.param("BLOCK", {128, 256}),
  },
  problems = { {n = 1 << 20} },
  args = {
    ct.output("float", "n"),
    ct.input("float", "n"),
    ct.input("int", 1, {fill = "zero"}),  -- flag: stays 0 (the hang spins on it, the fault uses it)
    ct.scalar("int", "n"),
  },
  -- MODE 4 asks for more threads per block than any GPU allows: the launch must fail cleanly.
  block = function(p, n)
    if p.MODE == 4 then return 2048 end
    return p.BLOCK
  end,
  grid = function(p, n) return ct.cdiv(n.n, p.BLOCK) end,
  reference = {
    kernel = "copy_ref",
    block = {256},
    grid = function(n) return ct.cdiv(n.n, 256) end,
  },
  check = { tolerance = 0 },
  bytes = function(n) return 2 * 4 * n.n end,
  objectives = { "time" },
  timeout = 2,  -- seconds: the hanging variant is killed after this
}
