-- The 2-D convolution space (templates/convolution.cu), with the parameter names, value sets
-- and restrictions of the public Kernel Tuner caches of this kernel
-- (shared/data/tuning-caches/convolution/*.json.gz: A100, A4000, A6000 ...): the same 4,362
-- valid configurations, so that a cutune store of this space measured on an H200 and those
-- caches merge into one header:
--   cutune header lua/convolution_space.lua results/ A100.json.gz A4000.json.gz A6000.json.gz
-- The problem is theirs: a 4096 x 4096 output, a 15 x 15 filter.
local ct = require "cutune"

return ct.space {
  name = "convolution",
  template = "templates/convolution.cu",
  kernel = "convolution",

  params = {
    ct.param("block_size_x", ct.range(16, 256, 16)),
    ct.param("block_size_y", {1, 2, 4, 8, 16}),
    ct.param("tile_size_x", {1, 2, 3, 4}),
    ct.param("tile_size_y", {1, 2, 3, 4}),
    ct.param("read_only", {0, 1}),
    ct.param("use_padding", {0, 1}),
    ct.param("use_shmem", {0, 1}),
    ct.param("use_cmem", {1}),
    ct.param("filter_height", {15}),
    ct.param("filter_width", {15}),
  },

  constraints = {
    ct.rule({"block_size_x", "block_size_y"}, function(p) return p.block_size_x * p.block_size_y <= 1024 end,
      "at most 1024 threads per block"),
    -- padding only where it can matter: a shared tile whose rows are not a multiple of 32 threads wide
    ct.rule({"block_size_x", "use_padding", "use_shmem"}, function(p)
      return p.use_padding == 0 or (p.use_shmem == 1 and p.block_size_x % 32 ~= 0)
    end, "use_padding only with use_shmem and block_size_x not a multiple of 32"),
    ct.rule({"block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "use_shmem", "filter_height", "filter_width"},
      function(p)
        if p.use_shmem == 0 then return true end
        local w = p.block_size_x * p.tile_size_x + p.filter_width - 1
        local h = p.block_size_y * p.tile_size_y + p.filter_height - 1
        return w * h * 4 <= 48 * 1024
      end, "the shared input tile fits in 48 KB"),
  },

  -- Kernel Tuner's problem_size is (4096, 4096): W and H (`cutune header --kt-problem W,H`).
  problems = { {W = 4096, H = 4096} },

  args = {
    ct.output("float", "W*H"),
    ct.input("float", "(W+14)*(H+14)"),     -- filter_width/height are 15 in every configuration
    ct.input("float", 15 * 15, {name = "filter", lo = 0, hi = 1}),
    ct.scalar("int", "W"),
    ct.scalar("int", "H"),
  },

  block = function(p, n) return p.block_size_x, p.block_size_y end,
  grid = function(p, n)
    return ct.cdiv(n.W, p.block_size_x * p.tile_size_x), ct.cdiv(n.H, p.block_size_y * p.tile_size_y)
  end,

  reference = {
    kernel = "convolution_ref",
    block = {16, 16},
    grid = function(n) return ct.cdiv(n.W, 16), ct.cdiv(n.H, 16) end,
  },
  -- the same taps in the same order, but shared vs global loads may contract differently
  check = { tolerance = 1e-4 },
  bytes = function(n) return 4 * ((n.W + 14) * (n.H + 14) + n.W * n.H) end,
  flops = function(n) return 2 * 225 * n.W * n.H end,
  objectives = { "time" },
}
