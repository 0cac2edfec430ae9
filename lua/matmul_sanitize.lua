-- The matmul space (lua/matmul_space.lua) at sizes small enough for compute-sanitizer: racecheck
-- on the 1000x1003x999 problem ran past 45 s per configuration on the H200. Same template,
-- parameters and constraints; small problems, one ragged in every dimension.
--   cutune explain lua/matmul_sanitize.lua --no-profile --sanitize --top 0 --config ...
local s = require "matmul_space"
s.spec.name = "matmul_sanitize"
-- the last two: one block of the 32x256 and the 128x256 tiles, walking a 4096-deep K (256 tiles)
s.spec.problems = { {M = 256, N = 256, K = 256}, {M = 100, N = 131, K = 67},
                    {M = 32, N = 256, K = 4096}, {M = 128, N = 256, K = 4096} }
return s
