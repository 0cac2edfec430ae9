-- Kernel Tuner's examples/cuda/spmv.py as a cutune space, on the unchanged spmv.cu (give its folder
-- with --kernel-path or CUTUNE_KERNEL_PATH). As the script: the same two parameters (64
-- configurations, as Kernel Tuner counts them), a 128 Ki x 128 Ki CSR matrix with 0.1 % of its
-- elements nonzero, one warp per row (grid_div_x "block_size_x/32"). Two departures:
-- - spmv.cu calls __shfl_down, which CUDA 9 removed for sm_70 and newer (no tool compiles it for
--   sm_90 unchanged); the option -D__shfl_down(v,s)=... maps it to __shfl_down_sync over the
--   whole warp, the same shuffle, leaving the source as it is.
-- - the CSR row offsets: the script's are sorted random offsets from 0 to nnz. A cutune input
--   holds seeded random data (docs/SPACE.md), not an array built by the space, so here rows are
--   random in 0..1000 and not sorted: each warp reads 0 to ~1000 elements instead of ~131, and
--   the times are not those of the script's matrix. Timing only (check = false), as the script:
--   its kernel computes the warp index as blockIdx.x * block_size_x * threadIdx.x / 32 (a product
--   where a sum was meant), so configurations write different rows and no reference could agree.
local ct = require "cutune"
return ct.space {
  name = "kt_spmv",
  template = "spmv.cu",
  kernel = "spmv_kernel",
  params = {
    ct.param("block_size_x", ct.range(32, 1024, 32)),
    ct.param("read_only", {0, 1}),
  },
  problem = { nrows = 131072, ncols = 131072, nnz = 17179869 },
  args = {
    ct.output("float", "nrows", {name = "y", fill = "zero"}),
    ct.input("int", "nrows+1", {name = "rows", lo = 0, hi = 1000}),
    ct.input("int", "nnz", {name = "cols", lo = 0, hi = 131071}),
    ct.input("float", "nnz", {name = "vals"}),
    ct.input("float", "ncols", {name = "x"}),
    ct.scalar("int", "nrows"),
  },
  block = function(p, n) return p.block_size_x end,
  grid = function(p, n) return ct.cdiv(n.nrows, p.block_size_x // 32) end,
  options = {"-D__shfl_down(v,s)=__shfl_down_sync(0xffffffffu,v,s)"},
  check = false,
}
