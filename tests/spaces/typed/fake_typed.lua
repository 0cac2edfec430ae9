-- Fixture for tests/cli_fake_typed.sh: buffers typed by the configuration. float_type is a string
-- parameter (-Dfloat_type=half), the three buffers follow it (the same seeded draws in each type),
-- and the output is compared in double with the reference, the same kernel in double
-- (reference.defines), within bounds by type. $TIGHT: half's atol as float's (1e-6), which half's
-- rounding passes (its sums are off by up to ~1e-3): half's configurations are wrong_result.
local ct = require "cutune"
local ft = function(p) return p.float_type end
local tight = os.getenv("TIGHT") ~= nil
return ct.space {
  name = "fake_typed",
  template = "fake_typed.cu",
  kernel = "add_typed",
  params = { ct.param("BLOCK", {64, 256}), ct.param("float_type", {"float", "double", "half"}) },
  problem = { n = 4096 },
  args = {
    ct.scalar("int", "n"),
    ct.input(ft, "n", {name = "left"}),
    ct.input(ft, "n", {name = "right"}),
    ct.output(ft, "n", {name = "output", atol = {float = 1e-6, double = 0, half = tight and 1e-6 or 2e-3},
                        rtol = {float = 1e-6, double = 0, half = tight and 0 or 1e-3}}),
  },
  block = function(p, n) return p.BLOCK end,
  grid = function(p, n) return ct.cdiv(n.n, p.BLOCK) end,
  reference = { kernel = "add_typed", defines = { BLOCK = 32, float_type = "double" }, block = {32},
                grid = function(n) return ct.cdiv(n.n, 32) end },
  timeout = 60,
}
