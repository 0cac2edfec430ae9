-- jacobi2d.lua: one sweep of a 5-point Jacobi stencil on an nx x ny float grid
-- (examples/kernels/jacobi2d.cu), a shared-memory tile with a one-cell halo. Tunes the block's
-- width and height and the cells each thread computes in y (the tile is BLOCK_X x BLOCK_Y*CELLS_Y).
local ct = require "cutune"

return ct.space {
  name = "jacobi2d",
  template = "jacobi2d.cu",
  kernel = "jacobi5<BLOCK_X, BLOCK_Y, CELLS_Y>",

  params = {
    ct.param("BLOCK_X", {16, 32, 64, 128}),
    ct.param("BLOCK_Y", {1, 2, 4, 8, 16}),
    ct.param("CELLS_Y", {1, 2, 4, 8}),
  },
  constraints = {
    ct.rule({"BLOCK_X", "BLOCK_Y"}, function(p)
      local t = p.BLOCK_X * p.BLOCK_Y
      return t >= 64 and t <= 1024
    end, "64 to 1024 threads per block"),
    ct.rule({"BLOCK_X", "BLOCK_Y", "CELLS_Y"}, function(p)
      return (p.BLOCK_Y * p.CELLS_Y + 2) * (p.BLOCK_X + 2) * 4 <= 48 * 1024
    end, "the tile and its halo fit in 48 KB of static shared memory"),
  },

  -- a square beyond L2, odd sizes in both dimensions (partial tiles on the right and bottom),
  -- an L2-resident odd grid, and a short wide one
  problems = {
    {nx = 8192, ny = 8192},
    {nx = 4097, ny = 4095},
    {nx = 1001, ny = 999},
    {nx = 16383, ny = 1025},
  },

  args = {
    ct.output("float", "nx*ny", {name = "out"}),
    ct.input("float", "nx*ny", {name = "in"}),
    ct.scalar("int", "nx", {name = "nx"}),
    ct.scalar("int", "ny", {name = "ny"}),
  },

  block = function(p, n) return p.BLOCK_X, p.BLOCK_Y end,
  grid = function(p, n) return ct.cdiv(n.nx, p.BLOCK_X), ct.cdiv(n.ny, p.BLOCK_Y * p.CELLS_Y) end,

  reference = {
    kernel = "jacobi5_ref",
    block = {32, 8},
    grid = function(n) return ct.cdiv(n.nx, 32), ct.cdiv(n.ny, 8) end,
  },
  -- the same additions in the same order as the reference, so normally bitwise equal; the bounds
  -- leave room for a compiler that reassociates
  check = { atol = 1e-6, rtol = 1e-5 },
  bytes = function(n) return 2 * 4 * n.nx * n.ny end,  -- the grid read once, written once
}
