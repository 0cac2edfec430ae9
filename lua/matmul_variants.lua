-- The matmul space (lua/matmul_space.lua) restricted to the neighbourhood of the H200 winner
-- (BM=128 BN=256 BK=16 WM=64 WN=64 TM=16 TN=8 STAGES=1 SDB=0 PAD=4, 3.071 ms at 4096^3 on
-- 2026-12-01) and the load/pipeline variants around it: the three best tile shapes of that run
-- (128x256 with 64x64 or 128x32 warp tiles, 256x128 with 64x64), every STAGES, SDB, REGDB
-- (2: fragments across tiles) and HOIST; BK 8, 16 and 32 for the first shape; PAD=4, UNROLL=0,
-- GROUPM=8 (GROUPM made no difference at 4096^3). Small enough to measure whole (~130
-- configurations): `bench/gpu_session.sh mmvariants` times all of them at 4096^3 and checks
-- them on the ragged problems.
local ct = require "cutune"
local s = require "matmul_space"
-- REGDB=2 is out of matmul_space.lua (its race, docs/MATMUL.md); this study space keeps it
for _, prm in ipairs(s.spec.params) do
  if prm.name == "REGDB" then prm.values = {0, 1, 2} end
end
local shapes = {
  ["128x256/64x64/16x8"] = true,
  ["128x256/128x32/16x8"] = true,
  ["256x128/64x64/16x8"] = true,
}
table.insert(s.spec.constraints, 1, ct.rule(
  {"BM", "BN", "BK", "WM", "WN", "TM", "TN", "PAD", "UNROLL", "GROUPM"}, function(p)
    local shape = ("%dx%d/%dx%d/%dx%d"):format(p.BM, p.BN, p.WM, p.WN, p.TM, p.TN)
    if not shapes[shape] or p.PAD ~= 4 or p.UNROLL ~= 0 or p.GROUPM ~= 8 then return false end
    return p.BK == 16 or shape == "128x256/64x64/16x8"
  end, "the winner's neighbourhood (lua/matmul_variants.lua)"))
-- the study is about the loads and the pipeline: no split-K, no stream-K (they have their own
-- candidates in bench/templates_session.sh)
table.insert(s.spec.constraints, 1, ct.rule({"SPLITK", "STREAMK"}, function(p) return p.SPLITK == 1 and p.STREAMK == 0 end,
  "SPLITK=1, STREAMK=0 (lua/matmul_variants.lua)"))
return s
