-- Kernel Tuner's examples/cuda/spmv.py as a cutune space, on the unchanged spmv.cu (give its folder
-- with --kernel-path or CUTUNE_KERNEL_PATH). As the script: the same two parameters (64
-- configurations, as Kernel Tuner counts them), a 128 Ki x 128 Ki CSR matrix with 0.1 % of its
-- elements nonzero, one warp per row (grid_div_x "block_size_x/32"), and the script's matrix:
-- its row offsets are [0] + sorted(rand(nrows - 1) * nnz) + [nnz] as int32, made here by a values
-- function (docs/SPACE.md, "Buffers filled from data"; math.random is seeded by cutune, so the
-- matrix is the same run after run), its column indices uniform in 0..ncols-1 (the seeded fill
-- draws them so), its values and x random (normal in the script, uniform here: the time does not
-- depend on them). To tune on the script's very arrays, save them with numpy.save and give
-- {file = "rows.npy"} (docs/KERNEL_TUNER.md). One departure: spmv.cu calls __shfl_down, which
-- CUDA 9 removed for sm_70 and newer (no tool compiles it for sm_90 unchanged); the option
-- -D__shfl_down(v,s)=... maps it to __shfl_down_sync over the whole warp, the same shuffle,
-- leaving the source as it is. Timing only (check = false), as the script: its kernel computes
-- the warp index as blockIdx.x * block_size_x * threadIdx.x / 32 (a product where a sum was
-- meant), so configurations write different rows and no reference could agree.
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
    ct.input("int", "nrows+1", {name = "rows", values = function(n)
      local r = {0}
      for i = 2, n.nrows do r[i] = math.floor(math.random() * n.nnz) end
      table.sort(r)
      r[n.nrows + 1] = n.nnz
      return r
    end}),
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
