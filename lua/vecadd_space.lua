-- The vector-add space: c = a + b in float32, the seed's memory-bound example. Block size, access
-- width, vectors per thread, one pass or a grid-stride loop, cache hints. The limit is the
-- device-to-device copy bandwidth (12 bytes moved per element: two reads, one write); see
-- templates/vecadd.cu for what each parameter does.
local ct = require "cutune"

return ct.space {
  name = "vecadd",
  template = "templates/vecadd.cu",
  kernel = "vecadd",

  params = {
    ct.param("BLOCK", {64, 128, 256, 512, 1024}),   -- threads per block
    ct.param("VEC", {1, 2, 4}),                      -- floats per access: 4-, 8-, 16-byte
    ct.param("EPT", {1, 2, 4, 8}),                   -- independent vectors per thread and pass
    ct.param("GRID", {0, 256, 1024, 4096}),          -- 0: one pass; else a grid-stride loop over <= GRID blocks
    ct.param("CS", {0, 1}),                          -- streaming (evict-first) loads and stores
  },

  -- The first problem is the judged one: 1 GiB per array (3 GiB moved per launch), far beyond the
  -- H200's 60 MiB L2. 2^20 floats (12 MiB in all) is L2-resident; 2^24 + 3 is ragged (a tail of 3
  -- elements after the last float4/float2, done by the scalar tail).
  problems = {
    {n = 1 << 28},
    {n = 1 << 24},
    {n = 1 << 20},
    {n = (1 << 24) + 3},
  },

  args = {
    ct.output("float", "n", {name = "c"}),
    ct.input("float", "n", {name = "a"}),
    ct.input("float", "n", {name = "b"}),
    ct.scalar("int64", "n"),
  },

  block = function(p, n) return p.BLOCK end,
  grid = function(p, n)
    local chunks = ct.cdiv(ct.cdiv(n.n, p.VEC), p.BLOCK * p.EPT)
    if p.GRID > 0 and p.GRID < chunks then return p.GRID end
    return chunks
  end,

  reference = {
    kernel = "vecadd_ref",
    block = {256},
    grid = function(n) return ct.cdiv(n.n, 256) end,
  },
  check = { tolerance = 0 },                     -- one float add per element: bitwise exact
  bytes = function(n) return 12 * n.n end,       -- a and b read once, c written once
  objectives = { "time" },
}
