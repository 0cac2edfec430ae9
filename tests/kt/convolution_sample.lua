-- For tests/cli_kernel_tuner_examples.sh: examples/kernel_tuner/convolution.lua itself (its
-- arguments, constant memory, restrictions, per-configuration reference), with the parameters cut
-- to a few cheap values so that a sample compiles in seconds (the whole space's cover includes
-- 8 x 8 tiles of a 33 x 33 filter, fully unrolled: minutes each).
local t = require "examples.kernel_tuner.convolution"
local keep = { filter_height = {3, 17}, filter_width = {3, 5}, block_size_x = {16, 32}, block_size_y = {4, 16},
               tile_size_x = {1, 2}, tile_size_y = {1, 8}, use_padding = {0, 1}, read_only = {0, 1} }
for _, p in ipairs(t.spec.params) do p.values = keep[p.name] end
return t
