-- Kernel Tuner's examples/cuda/zeromeanfilter.py, its second tune_kernel (tune_horizontal:
-- computeMeanHorizontally), as a cutune space on the unchanged zeromeanfilter.cu (give its folder
-- with --kernel-path or CUTUNE_KERNEL_PATH); zeromeanfilter_vertical.lua with the kernel, grid and
-- reference replaced. As the script: the same two parameters with Kernel
-- Tuner's max_threads (31 configurations, as it counts them), the 4391 x 3539 image, one column
-- of blocks (problem size (1, height), grid_div_x none, grid_div_y block_size_y). The kernel filters
-- the image in place, so it is an inout: restored before the check, as Kernel Tuner restores its
-- arguments. The script checks nothing; the file has no naive horizontal kernel, so the
-- reference is computeMeanHorizontally itself with block_size_x = 1 (256 rows a block,
-- reference.defines): one thread per row, which skips the kernel's shared-memory reduction
-- (#if block_size_x > 1). atol/rtol 1e-5 (float sums of 1770 terms in another order). The
-- kernel's reduction halves block_size_x and asks a power of two ("block_size_x power of 2" in
-- the source); the script tunes multiples of 32, so on a GPU expect the configurations with 96,
-- 160, 192 or 224 to be recorded wrong_result (and the run's exit status 3).
local ct = require "cutune"
local vertical = require "zeromeanfilter_vertical" -- the same parameters, rule, image and arguments

local spec = {}
for k, v in pairs(vertical.spec) do spec[k] = v end
spec.name = "kt_zeromeanfilter_horizontal"
spec.kernel = "computeMeanHorizontally"
spec.grid = function(p, n) return 1, ct.cdiv(n.H, p.block_size_y) end
spec.reference = { kernel = "computeMeanHorizontally", block = {1, 256}, grid = function(n) return 1, ct.cdiv(n.H, 256) end,
                   defines = { block_size_x = 1, block_size_y = 256 } }
return ct.space(spec)
