-- The matmul space: strict-FP32 SIMT SGEMM, C = alpha*A*B + beta*C (row-major), from the seed's
-- 16x16 shared-tile kernel up to the warp-tiled, cp.async-pipelined kernels that approach cuBLAS.
-- See templates/matmul.cu for what each parameter does to the kernel. The space is far too large
-- to measure whole (about 168,000 valid configurations at 0.1-0.8 s of NVRTC each): `cutune run`
-- without --budget/--time gives it a budgeted search (see `cutune run --help`).
local ct = require "cutune"

-- Shape of the block and the per-thread load counts (must match templates/matmul.cu).
local function threads(p) return (p.BM // p.WM) * (p.BN // p.WN) * 32 end
local function cdiv(a, b) return (a + b - 1) // b end
local function smem_bytes(p)
  local nbuf = p.STAGES > 1 and p.STAGES or (p.SDB == 1 and 2 or 1)
  local pipe = nbuf * p.BK * (p.BM + p.PAD + p.BN) * 4
  -- split-K: each block of a cluster stages its partial BM x BN tile in its shared memory; the
  -- last cluster of a stream-K tile sums the partials there
  if p.SPLITK > 1 or p.STREAMK > 0 then return math.max(pipe, p.BM * p.BN * 4) end
  return pipe
end
-- Registers per thread, estimated: accumulators, fragments (twice with REGDB), the staged
-- next tile of the plain-load path (float4 each), and ~40 for addresses, indices and loop state.
-- Measured on sm_90 for BM=BN=128, BK=8, 8x8 threads: ptxas gives 122-168, this gives 136-160.
local function regs(p)
  local t = threads(p)
  local r = p.TM * p.TN + (p.REGDB > 0 and 2 or 1) * (p.TM + p.TN) + 40
  if p.STAGES == 1 then
    r = r + 4 * (cdiv(p.BM * p.BK // 4, t) + cdiv(p.BK * p.BN // 4, t))
  end
  return r
end

-- Stream-K (STREAMK = k > 0): a persistent grid of k blocks per SM. The space cannot ask the
-- device, so its grid counts the SMs of the GPU the store is tuned on (the H200's 132); the
-- production launcher (kernels/matmul_launch.cu) takes the device's own count, and no more
-- clusters than the device holds at once (cudaOccupancyMaxActiveClusters: a cluster's blocks
-- share one GPC, so where a GPC's SMs are not a multiple of SPLITK the GPU holds fewer than
-- SMs / SPLITK clusters). The tuner's grid cannot ask: on a GPU with fewer SMs, or for clusters
-- that do not all fit, it is more than one round (correct, slower than the launcher will run it).
local SMS = 132
-- Blocks of a configuration that one SM holds at once, estimated (threads, shared memory with
-- 1 KB reserved per block, registers rounded up to 8 per thread): a persistent grid of k
-- blocks per SM must fit in one round.
local function blocks_per_sm(p)
  local t = threads(p)
  local r = cdiv(regs(p), 8) * 8
  return math.min(2048 // t, 233472 // (smem_bytes(p) + 1024), 65536 // (r * t))
end
-- The stream-K workspace (templates/matmul.cu, MM_WS_FLOATS): 4096 counters (the same head for
-- every configuration and grid: they all share the one buffer below), then two partial tiles per
-- cluster; WS_FLOATS is what the space allocates for every configuration (the constraint below
-- keeps every configuration within it).
local function sk_grid(p) return p.SPLITK * ((p.STREAMK * SMS) // p.SPLITK) end
local function ws_floats(p)
  if p.STREAMK == 0 then return 0 end
  local g = sk_grid(p)
  return 4096 + 2 * (g // p.SPLITK) * p.BM * p.BN
end
local WS_FLOATS = 4096 + 2 * SMS * 32768  -- 1 x 132 clusters of 256x128, or 2 x 132 of 128x128

-- Problems: the judged one first. Kmax decides the tolerance below.
local problems = {
  {M = 4096, N = 4096, K = 4096},   -- judged: 137 GFLOP per launch, ~2.7 ms at cuBLAS's ~51 TFLOP/s
  {M = 1024, N = 8192, K = 2048},   -- non-square, a short wide C
  {M = 1100, N = 1284, K = 1060},   -- divides no tile (edge tiles everywhere), leading dims % 4 == 0
  {M = 1000, N = 1003, K = 999},    -- divides no tile, N % 4 == 3 and K % 4 == 3: scalar load paths
}
local kmax = 0
for _, n in ipairs(problems) do kmax = math.max(kmax, n.K) end

-- Tolerance. The worker passes an element when |c - ref| <= tol * max(1, |ref|); the reference
-- accumulates in float64. Inputs are uniform in [-1, 1], so a product has E[(ab)^2] = 1/9 and a
-- partial sum of j terms has magnitude ~ sqrt(j/9). A float32 kernel rounds each of its K
-- accumulations by up to u|s_j| (u = 2^-24); with rounding errors of random sign the error of
-- an element has standard deviation ~ u * sqrt(sum_j j/9) = u * K / sqrt(18) (5.8e-5 at
-- K = 4096; |C| itself is ~ sqrt(K)/3 ~ 21 there). The worst-case bound K*u*sum|a||b| (~0.25
-- at K = 4096) would be far too loose to catch a bug. We take tol = 4 * u * Kmax (9.8e-4 at
-- Kmax = 4096): ~17 standard deviations where the absolute floor (|ref| < 1) applies, more where
-- |ref| is larger, and far below what a real bug costs (one missing product changes an element
-- by ~0.25 on average, a missing BK slice by ~1).
-- Split-K (SPLITK = S > 1) sums each element in S slices of about K/S products, then adds the S
-- partials in a fixed order: each partial's error has standard deviation ~ u * (K/S) / sqrt(18),
-- so the element's is ~ u * K / sqrt(18 S) plus S - 1 roundings of the running sum (each
-- ~ u * |C|, |C| ~ sqrt(K)/3: 1e-5 at K = 4096, S = 8): never more than the unsplit kernel's, so
-- the same tolerance holds, and a lost slice (an error of ~ |C| / sqrt(S)) still fails by far.
local tolerance = 4 * 2.0^-24 * kmax

return ct.space {
  name = "matmul",
  template = "templates/matmul.cu",
  kernel = "matmul",

  params = {
    ct.param("BM", {32, 64, 128, 256}),      -- block tile rows of C
    ct.param("BN", {32, 64, 128, 256}),      -- block tile columns of C
    ct.param("BK", {8, 16, 32}),             -- depth of one shared-memory slice
    ct.param("WM", {16, 32, 64, 128}),       -- warp tile rows
    ct.param("WN", {16, 32, 64, 128}),       -- warp tile columns
    ct.param("TM", {4, 8, 16}),              -- thread tile rows (runs of 4)
    ct.param("TN", {4, 8, 16}),              -- thread tile columns (runs of 4)
    ct.param("STAGES", {1, 2, 3, 4}),        -- 1: plain loads; 2-4: cp.async pipeline depth
    ct.param("SDB", {0, 1}),                 -- STAGES=1: two shared buffers, one barrier per tile
    ct.param("PAD", {0, 4}),                 -- floats of padding per row of the transposed A tile
    -- register fragments: 0 single, 1 double-buffered. The template's REGDB=2 (also across
    -- tiles) is left out: it has a race that no barrier tried so far removes (wrong results on
    -- the H200 at STAGES=2 and 3, docs/MATMUL.md), and at 4096^3 its best is 0.05-0.12 % ahead
    -- of REGDB=0's, about the spread between seeds. lua/matmul_variants.lua and
    -- bench/matmul_recheck.sh still build it, to study the race.
    ct.param("REGDB", {0, 1}),
    ct.param("UNROLL", {0, 2}),              -- inner k loop: 0 full unroll, 2 partial
    -- block order: bands of GROUPM block rows (L2 reuse). A runtime parameter: the kernel's last
    -- argument, not a -D, so configurations that differ only in it share one compile (in a default
    -- run about a third of the configurations differ from another one only in GROUPM).
    ct.param("GROUPM", {1, 8, 16}, {runtime = true}),
    ct.param("HOIST", {0, 1}),               -- load geometry computed once per thread (fewer integer ops)
    -- split-K: the SPLITK slices of K of one tile of C run as a cluster of as many blocks
    -- (sm_90), which add their partial tiles through distributed shared memory in a fixed order
    -- (deterministic). For large K against few tiles (256x256x16384: 16 tiles of 64x64 are
    -- 16 of the 132 SMs unsplit, 128 with SPLITK=8), and to even out the last wave.
    ct.param("SPLITK", {1, 2, 3, 4, 8}),
    -- stream-K: 0 one tile per cluster; k: a persistent grid of k blocks per SM (132 SMs on the
    -- H200), each cluster taking an equal run of all tiles' k tiles; a tile cut between clusters is
    -- finished by the last of them through the workspace `ws` (deterministic: the partials are
    -- added in cluster order). For sizes whose tile count is not a multiple of the SMs (4097^3:
    -- 4.25 waves of 128x256 tiles run as 5; 1100x1284x1060: 54 tiles on 132 SMs) and with
    -- SPLITK for few tiles and a long K (256x256x16384: 2 tiles of 128x256, 512 k tiles each).
    -- 3 and 4 (since 2026-12-03; the template took 0..4 before): small blocks of small tiles,
    -- 3-4 per SM, where 2 leave an SM with 4-8 warps (256x256x16384's best had 8).
    ct.param("STREAMK", {0, 1, 2, 3, 4}),
  },

  constraints = {
    ct.rule({"BM", "WM"}, function(p) return p.BM % p.WM == 0 end, "WM divides BM"),
    ct.rule({"BN", "WN"}, function(p) return p.BN % p.WN == 0 end, "WN divides BN"),
    ct.rule({"WM", "TM"}, function(p) return p.WM % p.TM == 0 end, "TM divides WM"),
    -- The lanes of a warp form a (WM/TM) x (WN/TN) grid: exactly 32 lanes, at most 16:2 skewed.
    ct.rule({"WM", "WN", "TM", "TN"}, function(p)
      if p.WN % p.TN ~= 0 then return false end
      local lm, ln = p.WM // p.TM, p.WN // p.TN
      return lm * ln == 32 and lm <= 16 and ln <= 16
    end, "(WM/TM) * (WN/TN) = 32 lanes, each side 2..16"),
    -- Accumulators: at most 128 per thread (16 x 16 would need 256 registers alone).
    ct.rule({"TM", "TN"}, function(p) return p.TM * p.TN <= 128 end, "TM*TN <= 128"),
    -- Threads: 64 to 1024 per block (two warps at least, the hardware's limit at most).
    ct.rule({"BM", "BN", "WM", "WN"}, function(p)
      local t = threads(p)
      return t >= 64 and t <= 1024
    end, "64 <= threads per block <= 1024"),
    -- Every thread has a whole share of a tile's loads, and at most 16 of each per tile (beyond
    -- that the block is too small for the tile: few warps, long serial load sequences).
    ct.rule({"BM", "BN", "BK", "WM", "WN", "STAGES"}, function(p)
      local t = threads(p)
      local va = p.STAGES == 1 and 4 or 1
      local a, b = p.BM * p.BK // va, p.BK * p.BN // 4
      return a % t == 0 and b % t == 0 and a // t <= 16 and b // t <= 16
    end, "A and B tile loads divide evenly over the threads, <= 16 each"),
    ct.rule({"STAGES", "SDB"}, function(p) return p.STAGES == 1 or p.SDB == 0 end,
      "SDB only with STAGES=1 (plain loads)"),
    -- The schedule of the fragments is unrolled over BK: double buffering needs the full unroll.
    ct.rule({"REGDB", "UNROLL"}, function(p) return p.REGDB == 0 or p.UNROLL == 0 end,
      "REGDB=1 or 2 needs UNROLL=0"),
    -- REGDB=2 reads the next tile's first fragments while the current tile's last k step runs:
    -- the next tile must be in another shared buffer.
    ct.rule({"REGDB", "STAGES", "SDB"}, function(p) return p.REGDB < 2 or p.STAGES > 1 or p.SDB == 1 end,
      "REGDB=2 needs a second shared buffer (SDB=1 or STAGES >= 2)"),
    ct.rule({"BK", "UNROLL"}, function(p) return p.UNROLL == 0 or p.UNROLL < p.BK end, "UNROLL < BK"),
    -- Split-K only on the cp.async pipeline with the hoisted loads, the full unroll and the
    -- padded A tile (what every winner of the store has), so that it adds a few variants per
    -- tile shape rather than multiplying the space (30,000 configurations more instead of 60,000).
    ct.rule({"SPLITK", "STAGES", "HOIST", "UNROLL", "PAD"}, function(p)
      return p.SPLITK == 1 or (p.STAGES > 1 and p.HOIST == 1 and p.UNROLL == 0 and p.PAD == 4)
    end, "SPLITK > 1 only with STAGES >= 2, HOIST=1, UNROLL=0, PAD=4"),
    -- Stream-K on the same kernels, with as many blocks per SM as fit in one round (more would
    -- run the persistent grid in two), and within the workspace the space allocates.
    ct.rule({"STREAMK", "STAGES", "HOIST", "UNROLL", "PAD"}, function(p)
      return p.STREAMK == 0 or (p.STAGES > 1 and p.HOIST == 1 and p.UNROLL == 0 and p.PAD == 4)
    end, "STREAMK > 0 only with STAGES >= 2, HOIST=1, UNROLL=0, PAD=4"),
    ct.rule({"STREAMK", "SPLITK", "BM", "BN", "BK", "WM", "WN", "TM", "TN", "STAGES", "SDB", "PAD", "REGDB"}, function(p)
      return p.STREAMK == 0 or (p.STREAMK <= blocks_per_sm(p) and ws_floats(p) <= WS_FLOATS)
    end, "STREAMK <= blocks per SM (a persistent grid in one round), its workspace <= WS_FLOATS"),
    -- Registers: at most 255 per thread and 64 K per block (estimate above), so that every
    -- configuration launches and nothing spills by design.
    ct.rule({"BM", "BN", "BK", "WM", "WN", "TM", "TN", "STAGES", "REGDB"}, function(p)
      local r = regs(p)
      return r <= 255 and r * threads(p) <= 65536
    end, "estimated registers <= 255 per thread and <= 65536 per block"),
    -- Shared memory: sm_90 allows 227 KB (232,448 bytes) per block with the dynamic opt-in
    -- (the GPU worker raises CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES above 48 KB).
    ct.rule({"BM", "BN", "BK", "STAGES", "SDB", "PAD", "SPLITK", "STREAMK"}, function(p) return smem_bytes(p) <= 232448 end,
      "shared memory <= 227 KB per block (sm_90 opt-in limit)"),
  },

  problems = problems,

  args = {
    ct.inout("float", "M*N", {name = "C"}),
    ct.input("float", "M*K", {name = "A"}),
    ct.input("float", "K*N", {name = "B"}),
    ct.scalar("int", "M"),
    ct.scalar("int", "N"),
    ct.scalar("int", "K"),
    ct.scalar("float", 1.0, {name = "alpha"}),
    ct.scalar("float", 0.5, {name = "beta"}),
    ct.scalar("int", "GROUPM", {name = "groupm"}),
    -- the stream-K workspace: counters that must start at 0 (each launch leaves them at 0) and
    -- the partial tiles; the same buffer for every configuration (unused without STREAMK)
    ct.input("float", WS_FLOATS, {name = "ws", fill = "zero"}),
    ct.scalar("int", WS_FLOATS, {name = "ws_floats"}),
  },

  block = function(p, n) return threads(p) end,
  grid = function(p, n)
    local tiles = ct.cdiv(n.M, p.BM) * ct.cdiv(n.N, p.BN)
    if p.STREAMK == 0 then return tiles * p.SPLITK end
    -- a persistent grid, no more clusters than k tiles (K = 0 counts as one k tile per tile)
    local kt = math.max(1, ct.cdiv(n.K, p.BK))
    return p.SPLITK * math.min(sk_grid(p) // p.SPLITK, tiles * kt)
  end,
  shared = function(p, n) return smem_bytes(p) end,

  -- One element per thread, float64 accumulation: the obviously correct kernel in the same file.
  reference = {
    kernel = "matmul_ref",
    block = {16, 16},
    grid = function(n) return ct.cdiv(n.N, 16), ct.cdiv(n.M, 16) end,
  },
  check = { tolerance = tolerance },
  flops = function(n) return 2 * n.M * n.N * n.K end,                 -- FFMA = 2 flops (cuBLAS convention)
  -- The baseline: cuBLAS SGEMM of the same shape, strict FP32, timed by the GPU worker once per
  -- problem; the tables show each configuration's share of it ("% cuBLAS").
  cublas_sgemm = function(n) return n.M, n.N, n.K end,
  bytes = function(n) return 4 * (n.M * n.K + n.K * n.N + 2 * n.M * n.N) end,
  objectives = { "time" },
}
