-- Kernel Tuner's examples/cuda/pnpoly.py as a cutune space, on the unchanged pnpoly.cu (give its
-- folder with --kernel-path or CUTUNE_KERNEL_PATH). The script tunes a host function
-- (pnpoly_host.cu, lang "C") that is not among the examples; this tunes the kernel it launches,
-- cn_pnpoly, with the script's parameters (5,456 configurations, as Kernel Tuner counts them),
-- 2e7 points and grid_div_x. The polygon: 600 vertices on the unit circle at sorted random
-- angles, as the script's; its slopes (use_precomputed_slopes = 1), which the host code would
-- compute, are computed here in float arithmetic (string.pack rounds to float), the kernel's
-- own formula. Both are __constant__ arrays, filled from these Lua tables in every module. The
-- reference: cn_pnpoly_naive from the same file. between_method 2 and 3 test (a - b) * (a - c)
-- < 0 in float, which rounds to 0 for a point within a rounding error of a vertex's y, where
-- methods 0 and 1 compare: a few points in 10^7 come out differently (3 of 2e7 on an H100,
-- 2026-12-08), a property of the kernel, not of the configuration's tuning. The bitmap may differ
-- from the reference in 20 points (one in a million); Kernel Tuner's script checks nothing.
local ct = require "cutune"
local VERTICES = 600

local function f32(x) return (string.unpack("f", string.pack("f", x))) end

local function polygon()
  local seed, angles = 12345, {}
  for i = 1, VERTICES do -- a fixed LCG: the same polygon on every run
    seed = (seed * 1103515245 + 12345) % 2147483648
    angles[i] = seed / 2147483648 * 2 * math.pi
  end
  table.sort(angles, function(a, b) return a > b end) -- the script's [::-1]
  local xy = {}
  for i = 1, VERTICES do
    xy[2 * i - 1], xy[2 * i] = f32(math.cos(angles[i])), f32(math.sin(angles[i]))
  end
  return xy
end
local XY = polygon()

local function slopes()
  local s = {}
  for j = 0, VERTICES - 1 do -- edge from vj to vk, k = j - 1 (VERTICES - 1 for j = 0), as the kernel
    local k = j == 0 and VERTICES - 1 or j - 1
    local dx, dy = f32(XY[2 * k + 1] - XY[2 * j + 1]), f32(XY[2 * k + 2] - XY[2 * j + 2])
    s[j + 1] = f32(dx / dy)
  end
  return s
end

local tiles = {1}
for i = 1, 10 do tiles[#tiles + 1] = 2 * i end

return ct.space {
  name = "kt_pnpoly",
  template = "pnpoly.cu",
  kernel = "cn_pnpoly",
  params = {
    ct.param("block_size_x", ct.range(32, 992, 32)),
    ct.param("tile_size", tiles),
    ct.param("between_method", {0, 1, 2, 3}),
    ct.param("use_precomputed_slopes", {0, 1}),
    ct.param("use_method", {0, 1}),
  },
  problem = { n = 20000000 },
  args = {
    ct.output("int", "n", {name = "bitmap", mismatches = 20}),
    ct.input("float", "2*n", {name = "points", lo = -1.5, hi = 1.5}), -- float2 points
    ct.scalar("int", "n"),
  },
  symbols = {
    ct.symbol("d_vertices", "float", {values = XY}),
    ct.symbol("d_slopes", "float", {values = slopes()}),
  },
  block = function(p, n) return p.block_size_x end,
  grid = function(p, n) return ct.cdiv(n.n, p.block_size_x * p.tile_size) end,
  reference = { kernel = "cn_pnpoly_naive", block = {256}, grid = function(n) return ct.cdiv(n.n, 256) end },
  bytes = function(n) return 12 * n.n end,
  timeout = 30,
}
