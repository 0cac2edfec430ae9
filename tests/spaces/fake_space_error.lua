-- Fixture for tests/cli_fake_space_error.sh: a space whose grid function raises for B = 128 (a
-- mistake in the space's own code: space_error, a failure) and whose block is over CUDA's 1024
-- threads for B = 2048 (a limit: invalid, data). $FAKE_SPACE_ERROR_FIXED: the grid fixed. The
-- fake libcuda.so.1 (tests/fake) runs the rest.
local ct = require "cutune"
local fixed = os.getenv("FAKE_SPACE_ERROR_FIXED") ~= nil
return ct.space {
  name = "fake_space_error",
  template = "fake_run.cu",
  kernel = "copy_ok",
  params = { ct.param("B", {64, 128, 256, 2048}), ct.param("U", {1, 2}) },
  problems = { {n = 4096} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n)
    if p.B == 128 and not fixed then return n.x.y end -- the mistake: n has no x
    return ct.cdiv(n.n, p.B)
  end,
  reference = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  timeout = 60,
}
