-- hgemm: the tensor-core GEMM space, C = alpha*A*B + beta*C with A, B in a 16-bit type and FP32
-- accumulation (row-major, B K x N as in lua/matmul_space.lua), shared by lua/hgemm_space.lua
-- (bfloat16, the judged one) and lua/hgemm_f16_space.lua (half): require "hgemm" gives
-- {space = function(dtype), tolerance = function(kmax)}: the space for the element type ("bf16"
-- or "f16"), and the check's tolerance for a longest K (tests/spaces/fake_hgemm.lua checks it
-- through the fake driver). See templates/hgemm.cu for what each parameter does to the kernel
-- and docs/HGEMM.md for the design and the figures.
local ct = require "cutune"

-- Shape of the block, shared memory and registers (must match templates/hgemm.cu).
local function consumers(p) return (p.BM // p.WM) * (p.BN // p.WN) end
local function threads(p)
  if p.WG == 1 then return 128 * (consumers(p) + p.WS) end
  return 32 * consumers(p)
end
local function loaders(p) return (p.WG == 1 and p.WS == 1) and 128 or threads(p) end
local function smem_bytes(p)
  return 1024 + p.STAGES * 2 * (p.BM + p.BN) * p.BK + ((p.WG == 1 and p.WS == 1) and 16 * p.STAGES or 0)
end
-- Registers per thread, estimated: the accumulators, the mma.sync fragments of one k16 step, two
-- per 16-byte load slot of a stage (address and predicate; only the loading threads have them),
-- and ~30-40 for addresses, indices and loop state. ptxas on sm_90a (CUDA 13): 137 for a 64x128
-- warpgroup tile (64 accumulators), 162 for 64x256 (128); with mma.sync 254 for a 64x64 warp tile
-- (128 accumulators: ptxas takes what the cap allows), 125 for 64x32 at 512 threads and BK = 32
-- (estimate 124), which spills at BK = 64 (estimate 130, over the cap of 128: pruned).
local function slots(p) return (p.BM * p.BK // 8 + p.BK * p.BN // 8) // loaders(p) end
local function regs(p)
  if p.WG == 1 then return p.WM * p.WN // 128 + 40 + (p.WS == 0 and 2 * slots(p) or 0) end
  return p.WM * p.WN // 32 + (p.WM // 16) * 4 + (p.WN // 8) * 2 + 30 + 2 * slots(p)
end
-- the per-thread register cap of __launch_bounds__(threads, 1): 64 K registers per block, in 8s
local function reg_cap(p) return math.min(255, (65536 // threads(p)) // 8 * 8) end

local hgemm = {}

-- Tolerance. An element passes when |c - ref| <= tol * max(1, |ref|); the reference (hgemm_ref)
-- sums the same 16-bit inputs in float64. A product of two bfloat16 (8-bit significands) or two
-- halves (11-bit) is exact in float32 (24 bits), so a kernel's only error is its float32
-- accumulation (in the tensor cores' order, and the split-K additions). With inputs uniform in
-- [-1, 1], a partial sum of j products has magnitude ~ sqrt(j/9). Rounding to nearest gives an
-- error of standard deviation ~ u*K/sqrt(18) (u = 2^-24): 5.8e-5 at K = 4096. The tensor cores
-- are not documented to round to nearest in their float32 sums; truncating every addition
-- instead biases each toward zero: simulated on the CPU (bfloat16 inputs, 1000-3000 dot
-- products), the worst error relative to max(1, |ref|) is 1.0 u*K at K = 4096 and 3.7 u*K at
-- K = 16384 (0.1 u*K rounding to nearest). We take tol = 16*u*Kmax (0.0156 at Kmax = 16384): 4x
-- the truncating model's worst case at the longest K, 16x at 4096, far below a bug's cost. A
-- missing k16 step (16 products) moves each of its elements by ~N(0, 16/9) (sigma 1.33); with
-- |ref| ~ sqrt(K)/3 (21 at K = 4096, 43 at 16384) the allowance there is 0.33-0.67, so each
-- element of the tile passes with probability <= 0.38 and a tile of 64x64 or more never does;
-- a missing BK or split-K slice (64+ products: sigma >= 2.7) even less; a product missing from
-- every element (one k of a tile not loaded) moves them by |a b| (0.25 on average). The check
-- runs on every problem, the odd one included.
function hgemm.tolerance(kmax) return 16 * 2.0^-24 * kmax end

function hgemm.space(dtype)
  assert(dtype == "bf16" or dtype == "f16", "hgemm: the element type is bf16 or f16")

  -- Problems: the judged one first; the odd one (no dimension a multiple of 8: every unaligned
  -- load path and the scalar epilogue); a small C with a long K, where only split-K fills the GPU.
  local problems = {
    {M = 4096, N = 4096, K = 4096},   -- judged: 137 GFLOP per launch, ~0.17 ms at cuBLAS's ~790 TFLOP/s
    {M = 1000, N = 1003, K = 999},
    {M = 256, N = 256, K = 16384},
  }
  local kmax = 0
  for _, n in ipairs(problems) do kmax = math.max(kmax, n.K) end

  local tolerance = hgemm.tolerance(kmax)

  return ct.space {
    name = dtype == "bf16" and "hgemm" or "hgemm_f16",
    template = "templates/hgemm.cu",
    kernel = "hgemm",
    options = dtype == "f16" and {"-DHG_F16=1"} or nil,

    params = {
      ct.param("WG", {0, 1}),                  -- 0 mma.sync (sm_80+), 1 wgmma (sm_90a: see arch below)
      ct.param("BM", {64, 128, 256}),          -- block tile rows of C
      ct.param("BN", {64, 128, 256}),          -- block tile columns of C
      ct.param("BK", {16, 32, 64}),            -- depth of one shared-memory stage
      ct.param("WM", {16, 32, 64, 128}),       -- warp tile rows (WG=0) or warpgroup tile rows (WG=1: 64, 128)
      ct.param("WN", {16, 32, 64, 128, 256}),  -- ... columns (WG=1: 64, 128, 256)
      ct.param("STAGES", {2, 3, 4, 5, 6}),     -- shared-memory buffers of the cp.async pipeline
      ct.param("SWZ", {0, 32, 64, 128}),       -- swizzle width in bytes (0: none, WG=0 only)
      ct.param("WS", {0, 1}),                  -- WG=1: a producer warpgroup and mbarriers
      ct.param("WAITG", {0, 1}),               -- WG=1: wgmma groups left in flight
      ct.param("REGS", {0, 1}),                -- WG=1, WS=1: setmaxnreg from producer to consumers
      -- WG=1, WS=1: the producer loads with tensor copies (TMA); CUTUNE_HGEMM_TMA=0 in the
      -- environment leaves them out (a GPU session's escape should they hang)
      ct.param("TMA", os.getenv("CUTUNE_HGEMM_TMA") == "0" and {0} or {0, 1}),
      -- block order and split-K: runtime parameters (kernel arguments, not -D), so that
      -- configurations differing only in them share one compile
      ct.param("GROUPM", {1, 8, 16}, {runtime = true}),
      ct.param("SPLITK", {1, 2, 4, 8, 16}, {runtime = true}),
    },

    constraints = {
      ct.rule({"BM", "WM"}, function(p) return p.BM % p.WM == 0 end, "WM divides BM"),
      ct.rule({"BN", "WN"}, function(p) return p.BN % p.WN == 0 end, "WN divides BN"),
      ct.rule({"WG", "WM", "WN"}, function(p)
        if p.WG == 1 then return (p.WM == 64 or p.WM == 128) and p.WN >= 64 and p.WM * p.WN <= 16384 end
        return p.WN <= 128 and p.WM * p.WN >= 512 and p.WM * p.WN <= 4096
      end, "WG=1: WM 64/128, WN >= 64, <= 128 accumulators; WG=0: 16 to 128 accumulators per thread"),
      ct.rule({"WG", "SWZ"}, function(p) return p.WG == 0 or p.SWZ > 0 end, "wgmma needs a swizzled layout"),
      ct.rule({"BK", "BN", "SWZ"}, function(p) return p.SWZ == 0 or ((2 * p.BK) % p.SWZ == 0 and (2 * p.BN) % p.SWZ == 0) end,
        "SWZ divides the tiles' rows (2*BK and 2*BN bytes)"),
      ct.rule({"WG", "WS", "WAITG", "REGS"}, function(p)
        return p.WG == 1 or (p.WS == 0 and p.WAITG == 0 and p.REGS == 0)
      end, "WS, WAITG and REGS are for WG=1"),
      ct.rule({"WG", "WS", "TMA"}, function(p) return p.TMA == 0 or (p.WG == 1 and p.WS == 1) end,
        "TMA=1 loads through the producer warpgroup (WG=1, WS=1)"),
      ct.rule({"STAGES", "WS", "WAITG"}, function(p) return p.STAGES >= (p.WS == 1 and 1 or 2) + p.WAITG end,
        "STAGES >= 2 + WAITG (1 + WAITG with a producer warpgroup)"),
      ct.rule({"WG", "BM", "BN", "WM", "WN", "WS", "REGS"}, function(p)
        if p.REGS == 1 and (p.WS == 0 or consumers(p) ~= 2) then return false end
        local t = threads(p)
        return t >= 64 and t <= 1024 and (p.WG == 1 or consumers(p) <= 16)
      end, "64 to 1024 threads; REGS=1 with a producer and two consumer warpgroups"),
      -- every loading thread has a whole share of each tile's 16-byte chunks, at most 32 in all
      ct.rule({"WG", "BM", "BN", "BK", "WM", "WN", "WS"}, function(p)
        local np = loaders(p)
        local a, b = p.BM * p.BK // 8, p.BK * p.BN // 8
        return a % np == 0 and b % np == 0 and (a + b) // np <= 32
      end, "A and B chunks divide evenly over the loading threads, <= 32 each"),
      -- registers: the estimate within the per-thread cap (REGS=1: the consumers' 200)
      ct.rule({"WG", "BM", "BN", "BK", "WM", "WN", "WS", "REGS"}, function(p)
        return regs(p) <= (p.REGS == 1 and 200 or reg_cap(p))
      end, "estimated registers within 64 K per block (255 per thread)"),
      ct.rule({"WG", "BM", "BN", "BK", "STAGES", "WS"}, function(p) return smem_bytes(p) <= 232448 end,
        "shared memory <= 227 KB per block (sm_90 opt-in limit)"),
    },

    -- The architecture a configuration needs: wgmma exists on sm_90a only (compiled for it when
    -- the GPU is a 9.0 one; skipped, as invalid, on any other); mma.sync with bf16 on sm_80+.
    arch = function(p) return p.WG == 1 and "sm_90a" or "sm_80" end,

    problems = problems,

    args = {
      ct.inout("float", "M*N", {name = "C"}),
      ct.input(dtype, "M*K", {name = "A"}),
      ct.input(dtype, "K*N", {name = "B"}),
      ct.scalar("int", "M"),
      ct.scalar("int", "N"),
      ct.scalar("int", "K"),
      ct.scalar("float", 1.0, {name = "alpha"}),
      ct.scalar("float", 0.5, {name = "beta"}),
      ct.scalar("int", "GROUPM", {name = "groupm"}),
      ct.scalar("int", "SPLITK", {name = "splitk"}),
      -- split-K's per-tile flags (a tile of at least 64 x 64); every launch leaves them zero
      ct.inout("int", "((M + 63) // 64) * ((N + 63) // 64)", {name = "flags", fill = "zero"}),
      -- TMA=1's tensor maps (every configuration gets them; the others ignore them): A as {K, M} in
      -- boxes {SWZ/2, BM}, B as {N, K} in boxes {SWZ/2, BK}, swizzled as the tiles are. Optional: a
      -- problem whose rows are not 16-byte multiples (K or N not a multiple of 8) passes zeros, and
      -- the kernel loads through its cp.async path (templates/hgemm.cu decides it the same way).
      ct.tensormap { buffer = "A", dtype = dtype, dims = {"K", "M"}, box = {"SWZ > 0 and SWZ // 2 or 8", "BM"},
                     swizzle = "SWZ", optional = true, name = "tmA" },
      ct.tensormap { buffer = "B", dtype = dtype, dims = {"N", "K"}, box = {"SWZ > 0 and SWZ // 2 or 8", "BK"},
                     swizzle = "SWZ", optional = true, name = "tmB" },
    },

    block = function(p, n) return threads(p) end,
    grid = function(p, n) return ct.cdiv(n.M, p.BM) * ct.cdiv(n.N, p.BN) * p.SPLITK end,
    shared = function(p, n) return smem_bytes(p) end,

    -- One element per thread, float64 accumulation of the same inputs.
    reference = {
      kernel = "hgemm_ref",
      block = {16, 16},
      grid = function(n) return ct.cdiv(n.N, 16), ct.cdiv(n.M, 16) end,
    },
    check = { tolerance = tolerance },
    flops = function(n) return 2 * n.M * n.N * n.K end,
    -- The baseline: cublasGemmEx of the same shape, inputs of this type, CUBLAS_COMPUTE_32F,
    -- timed by the GPU worker once per problem (the tables' "% cuBLAS").
    cublas_gemmex = function(n) return n.M, n.N, n.K, dtype end,
    bytes = function(n) return 2 * (n.M * n.K + n.K * n.N) + 8 * n.M * n.N end,
    objectives = { "time" },
  }
end

return hgemm
