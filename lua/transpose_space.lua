-- The transpose space: every variant of the seed document's transpose (naive, shared tile without
-- and with padding) and the ones that reach the copy bandwidth (tile 64, 4-8 rows per thread,
-- 16-byte accesses on both sides, conflict-free shared memory). See templates/transpose.cu for
-- what each parameter does to the kernel.
local ct = require "cutune"

-- Threads per block of a configuration (must match templates/transpose.cu and `block` below).
local function threads(p)
  if p.TILE == 0 then return 32 * p.BLOCK_ROWS end
  return (p.TILE // p.VEC) * p.BLOCK_ROWS
end

return ct.space {
  name = "transpose",
  template = "templates/transpose.cu",
  kernel = "transpose",

  params = {
    -- 0 is the naive kernel (no shared memory); the others are square shared-memory tiles.
    ct.param("TILE", {0, 16, 32, 64}),
    -- Floats of padding per shared row: 0 (the seed's conflicted kernel), 1 (conflict-free), 2.
    ct.param("PAD", {0, 1, 2}),
    -- An XOR swizzle of the shared tile instead of padding (conflict-free, no wasted words).
    ct.param("SWIZZLE", {0, 1}),
    -- Block is (TILE/VEC) x BLOCK_ROWS; each thread moves TILE/BLOCK_ROWS rows of VEC floats.
    ct.param("BLOCK_ROWS", {1, 2, 4, 8, 16, 32}),
    -- Floats per global access: 4-, 8- and 16-byte loads and stores.
    ct.param("VEC", {1, 2, 4}),
    -- 1: row loops unrolled, all of a thread's loads in flight; 0: one at a time.
    ct.param("UNROLL", {0, 1}),
    -- 1: loads through the read-only path (__ldg).
    ct.param("LDG", {0, 1}),
    -- The order in which blocks walk the tiles: 0 row-major, 1 column-major, 2/3 grouped in
    -- bands of 8/32 tile rows (long runs of each DRAM page on both sides). On the H200 the plain
    -- order plateaus near 92 % of the copy bandwidth whatever the other parameters do. A
    -- runtime parameter (the kernel's fifth argument, below): a configuration's four orders are
    -- one compile, which makes the cold run's compiles 2.8x fewer (3,014 configurations, 1,061
    -- modules), and what ships reads it at run time too.
    ct.param("ORDER", {0, 1, 2, 3}, {runtime = true}),
    -- Tiles per block: 4 walks four tiles of the launch order per block (fewer blocks, a
    -- shorter last wave). Tile 64 only.
    ct.param("TPB", {1, 4}),
    -- Write-aligned tiles (VEC=1, tile 64): where the rows of out are not 8- (32-) float aligned,
    -- each row of out is written in runs that start at a 32-byte sector (128-byte line) of the
    -- matrix, so no sector is written in part by two blocks; the tile of in becomes a slab of
    -- TILE + ALIGN rows (the extra rows hit L2). Odd sizes only: 8192^2 takes the plain tiles.
    ct.param("ALIGN", {0, 8, 32}),
  },

  constraints = {
    -- The naive kernel has no tile: the tile-only parameters stay at their first value so that
    -- it is counted once per block shape (BLOCK_ROWS 1..32 gives blocks of 32..1024 threads;
    -- BLOCK_ROWS = 32 is the seed's 32x32 block).
    ct.rule({"TILE", "PAD", "SWIZZLE", "VEC"}, function(p)
      return p.TILE ~= 0 or (p.PAD == 0 and p.SWIZZLE == 0 and p.VEC == 1)
    end, "the naive kernel (TILE=0) has no padding, swizzle or vectors"),
    ct.rule({"TILE", "UNROLL", "LDG", "ORDER"}, function(p)
      return p.TILE ~= 0 or (p.UNROLL == 0 and p.LDG == 0 and p.ORDER == 0)
    end, "the naive kernel (TILE=0) has no loops, plain loads and the launch order, as in the seed"),
    -- Tiles 16 and 32 are far from the top (the first H200 run at 8192^2: 162 and 144 us against
    -- 137 for tile 64): the launch order is explored for tile 64 only.
    ct.rule({"TILE", "ORDER"}, function(p) return p.TILE == 64 or p.ORDER == 0 end,
      "ORDER only for tile 64"),
    ct.rule({"TILE", "TPB"}, function(p) return p.TILE == 64 or p.TPB == 1 end, "TPB only for tile 64"),
    -- ALIGN moves single floats (its shift is per row of out, any residue), walks tile-64 slabs
    -- in rows of BLOCK_ROWS, and is tried with every row loop unrolled (as every winner so far).
    ct.rule({"ALIGN", "TILE", "VEC", "UNROLL", "BLOCK_ROWS"}, function(p)
      return p.ALIGN == 0 or (p.TILE == 64 and p.VEC == 1 and p.UNROLL == 1 and (p.TILE + p.ALIGN) % p.BLOCK_ROWS == 0)
    end, "ALIGN > 0 only with TILE=64, VEC=1, UNROLL=1, BLOCK_ROWS dividing TILE + ALIGN"),
    -- The swizzle replaces the padding.
    ct.rule({"PAD", "SWIZZLE"}, function(p) return p.SWIZZLE == 0 or p.PAD == 0 end,
      "SWIZZLE=1 only with PAD=0"),
    -- Each thread covers TILE/BLOCK_ROWS whole rows.
    ct.rule({"TILE", "BLOCK_ROWS"}, function(p) return p.TILE == 0 or p.TILE % p.BLOCK_ROWS == 0 end,
      "BLOCK_ROWS divides TILE"),
    -- At least one full warp, at most the hardware's 1024 threads per block.
    ct.rule({"TILE", "BLOCK_ROWS", "VEC"}, function(p)
      local t = threads(p)
      return t >= 32 and t <= 1024
    end, "32 <= threads per block <= 1024"),
    -- Static shared memory is limited to 48 KB (64 x 66 floats is 16.5 KB: always true today,
    -- kept so that larger tiles cannot slip through).
    ct.rule({"TILE", "PAD", "ALIGN"}, function(p) return (p.TILE + p.ALIGN) * (p.TILE + p.PAD) * 4 <= 48 * 1024 end,
      "static shared memory <= 48 KB"),
  },

  -- The first problem is the judged one. 4096^2 (128 MB moved) is about twice the H200's L2.
  -- The ragged one is a multiple of no tile; N % 4 == 0 but M % 4 == 2, so float4 variants take
  -- the guarded scalar path everywhere while float2 variants take the vector path inside and the
  -- scalar path on the edge tiles: both branches of the template are checked by every variant.
  problems = {
    {N = 8192, M = 8192},
    {N = 4096, M = 4096},
    {N = 1000, M = 3002},
  },

  args = {
    ct.output("float", "N*M"),   -- out: M x N
    ct.input("float", "N*M"),    -- in:  N x M
    ct.scalar("int", "N"),
    ct.scalar("int", "M"),
    ct.scalar("int", "ORDER", {name = "order"}),  -- the runtime parameter ORDER
  },

  block = function(p, n)
    if p.TILE == 0 then return 32, p.BLOCK_ROWS end
    return p.TILE // p.VEC, p.BLOCK_ROWS
  end,
  grid = function(p, n)
    if p.TILE == 0 then return ct.cdiv(n.M, 32), ct.cdiv(n.N, p.BLOCK_ROWS) end
    -- write-aligned tiles on shifted rows of out: one more tile along y
    local gy = (p.ALIGN > 0 and n.N % p.ALIGN ~= 0) and ct.cdiv(n.N + p.ALIGN - 1, p.TILE) or ct.cdiv(n.N, p.TILE)
    return ct.cdiv(n.M, p.TILE), ct.cdiv(gy, p.TPB)
  end,

  -- One element per thread, block {32, 8}: the obviously correct kernel in the same file.
  reference = {
    kernel = "transpose_ref",
    block = {32, 8},
    grid = function(n) return ct.cdiv(n.M, 32), ct.cdiv(n.N, 8) end,
  },
  check = { tolerance = 0 },       -- a transpose moves bits: exact
  bytes = function(n) return 2 * 4 * n.N * n.M end,  -- each element read once and written once
  objectives = { "time" },
}
