-- Kernel Tuner's examples/cuda/zeromeantotalfilter.py as a cutune space, on the unchanged
-- zeromeantotalfilter.cu (give its folder with --kernel-path or CUTUNE_KERNEL_PATH). The script is
-- zeromeanfilter.py's tune_vertical on another file (the same kernel, parameters, 4391 x 3539
-- image, grid and arguments: 31 configurations with Kernel Tuner's max_threads), so this is
-- zeromeanfilter_vertical.lua with the template replaced. This file has no default for
-- block_size_x/y (computeMeanVertically's shared arrays need both, and the reference is compiled
-- in the same program), so the reference's program gets a configuration's values
-- (reference.defines); the naive kernel reads neither.
local ct = require "cutune"
local vertical = require "zeromeanfilter_vertical"

local spec = {}
for k, v in pairs(vertical.spec) do spec[k] = v end
spec.name = "kt_zeromeantotalfilter"
spec.template = "zeromeantotalfilter.cu"
spec.reference = {}
for k, v in pairs(vertical.spec.reference) do spec.reference[k] = v end
spec.reference.defines = { block_size_x = 32, block_size_y = 1 }
return ct.space(spec)
