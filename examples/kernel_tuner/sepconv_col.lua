-- Kernel Tuner's examples/cuda/sepconv.py, its second tune_kernel (the column pass), as a cutune
-- space on the unchanged convolution.cu: sepconv_row.lua (arguments, constant memory, grid,
-- reference, check) with the script's parameters for this pass. The script sets filter_height to
-- the filter widths, filter_width and tile_size_x to 1, and keeps tile_size_y at the row pass's
-- [1]; it also adds "file_size_y" (the tile_size_x list, 1..10), most likely meant as
-- tile_size_y. No kernel reads file_size_y, but Kernel Tuner tunes it as a parameter all the same
-- (29,920 configurations, 2,992 without it), so it is mirrored here too: every value compiles to
-- the same code (one compile each: cutune cannot tell it is idle). To tune what
-- the script meant, replace it with ct.param("tile_size_y", ct.range(1, 10)).
local ct = require "cutune"
local row = require "sepconv_row"

local spec = {}
for k, v in pairs(row.spec) do spec[k] = v end
spec.name = "kt_sepconv_col"
spec.params = {
  ct.param("filter_height", ct.range(3, 17, 2)),
  ct.param("filter_width", {1}),
  ct.param("block_size_x", ct.range(16, 1024, 16)),
  ct.param("block_size_y", ct.pow2(1, 32)),
  ct.param("tile_size_x", {1}),
  ct.param("tile_size_y", {1}),
  ct.param("use_padding", {0, 1}),
  ct.param("read_only", {0, 1}),
  ct.param("file_size_y", ct.range(1, 10)),
}
return ct.space(spec)
