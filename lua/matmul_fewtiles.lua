-- The matmul shape set (lua/matmul_shapes.lua: same name, template, problems and tolerance, so one
-- store) narrowed to the kernels for shapes with few tiles of C and a long K (256 x 256 x 16384,
-- 64 x 1024 x 8192, 4096 x 64 x 4096, ...): tiles of at most 8192 elements (64 x 128) that split K
-- (SPLITK > 1) or stream it (STREAMK > 0). A longer search there than the shape set's transfer
-- gives, without spending it on the large tiles no such shape can use:
--   cutune run lua/matmul_fewtiles.lua --problem "M=256,N=256,K=16384" --transfer --time 30
-- Its records are the shape set's own: `cutune header lua/matmul_space.lua` ships them.
local ct = require "cutune"
local base = require "matmul_shapes"

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
local constraints = {}
for i, c in ipairs(spec.constraints) do constraints[i] = c end
constraints[#constraints + 1] = ct.rule({"BM", "BN", "SPLITK", "STREAMK"}, function(p)
  return p.BM * p.BN <= 8192 and (p.SPLITK > 1 or p.STREAMK > 0)
end, "few tiles: BM*BN <= 8192, split or streamed K")
spec.constraints = constraints
return ct.space(spec)
