-- Four configurations of lua/convolution_space.lua (shared and global loads, padding, read-only,
-- the largest tiles) for tests/cli_compile_convolution.sh: the template compiles without
-- compiling the whole space.
local ct = require "cutune"
local s = require "convolution_space"
local keep = {
  ["32,4,1,3,1,0,1"] = true, ["48,16,3,3,1,1,1"] = true, ["256,4,4,4,0,0,0"] = true, ["16,1,1,1,0,0,0"] = true,
}
table.insert(s.spec.constraints, ct.rule(
  {"block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only", "use_padding", "use_shmem"},
  function(p)
    return keep[table.concat({p.block_size_x, p.block_size_y, p.tile_size_x, p.tile_size_y, p.read_only,
                              p.use_padding, p.use_shmem}, ",")] == true
  end, "the sample"))
return s
