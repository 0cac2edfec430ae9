-- scan.lua: inclusive prefix sum of n ints (examples/kernels/scan.cu) as a launch sequence timed as
-- one configuration: per-tile scan writing tile totals, a one-block scan of the totals, then a pass
-- adding each tile's offset. Tunes the threads per block and the ints each thread scans; the
-- totals buffer has one element per tile, so its size follows the parameters.
local ct = require "cutune"

-- tiles of pass 1: a buffer's count and a scalar's value are functions of (n, p), the geometry
-- functions of (p, n)
local function tiles(n, p) return ct.cdiv(n.n, p.BLOCK * p.ITEMS) end

return ct.space {
  name = "scan",
  template = "scan.cu",

  params = {
    ct.param("BLOCK", {128, 256, 512, 1024}),
    ct.param("ITEMS", {1, 2, 4, 8, 16}),
  },
  constraints = {
    ct.rule({"BLOCK", "ITEMS"}, function(p) return p.BLOCK * p.ITEMS <= 8192 end,
            "a tile of at most 8192 ints (33 KB of static shared memory with its padding)"),
  },

  -- 256 MiB (beyond L2), 16 MiB, a prime size (a partial last tile) and a size smaller than most
  -- tiles (one tile: the second and third launches have nothing to add)
  problems = {
    {n = 1 << 26},
    {n = 1 << 22},
    {n = 1000003},
    {n = 5000},
  },

  args = {
    ct.output("int", "n", {name = "out"}),
    ct.input("int", "n", {name = "in", lo = -1000, hi = 1000}),  -- partial sums stay far from 2^31
    ct.output("int", tiles, {name = "totals", check = false}),
    ct.scalar("int64", "n", {name = "n"}),
    ct.scalar("int", tiles, {name = "nblocks"}),
  },

  launches = {
    ct.launch { kernel = "scan_tiles<BLOCK, ITEMS>", args = {"out", "in", "totals", "n"},
                block = function(p, n) return p.BLOCK end, grid = function(p, n) return tiles(n, p) end },
    ct.launch { kernel = "scan_block_totals<BLOCK>", args = {"totals", "nblocks"},
                block = function(p, n) return p.BLOCK end, grid = {1} },
    ct.launch { kernel = "add_block_offsets<BLOCK, ITEMS>", args = {"out", "totals", "n"},
                block = function(p, n) return p.BLOCK end, grid = function(p, n) return tiles(n, p) end },
  },

  reference = {
    kernel = "scan_ref", args = {"out", "in", "n"}, block = {1024}, grid = {1},
  },
  -- int output: compared bit for bit by default
  bytes = function(n) return 2 * 4 * n.n end,  -- the minimum (in read once, out written once);
                                               -- this sequence moves about twice that
}
