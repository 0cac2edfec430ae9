-- The sanitizer fixture: three variants of a pair swap through shared memory (see planted.cu):
-- MODE 0 correct, 1 a shared-memory race, 2 an out-of-bounds write. All pass the output check;
-- `cutune explain --sanitize` must flag 1 (racecheck) and 2 (memcheck) and clear 0.
local ct = require "cutune"

return ct.space {
  name = "planted",
  template = "planted.cu",
  kernel = "swap_pairs",
  params = { ct.param("MODE", {0, 1, 2}) },
  problems = { {n = 1 << 16} },
  args = {
    ct.output("float", "n"),
    ct.input("float", "n"),
    ct.scalar("int", "n"),
  },
  block = function(p, n) return 256 end,
  grid = function(p, n) return ct.cdiv(n.n, 256) end,
  reference = {
    kernel = "swap_pairs_ref",
    block = {256},
    grid = function(n) return ct.cdiv(n.n, 256) end,
  },
  check = { tolerance = 0 },
  bytes = function(n) return 2 * 4 * n.n end,
  objectives = { "time" },
}
