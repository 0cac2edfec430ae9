-- The space of the made-up SGEMM-like model (tests/fixtures/make_fixtures.sh writes its store,
-- tests/fixtures/store/shapes_model.jsonl.gz, from a formula, not from measurements): 384
-- configurations on 16 shapes, for the transfer replay (tests/cli_shapes_replay.sh) and the
-- kernel-set selection of the header (tests/cli_shapes_header.sh). Never compiled or run.
local ct = require "cutune"
return ct.space {
  name = "shapes_model",
  template = "tiny.cu",
  kernel = "tiny",
  params = {
    ct.param("BM", {32, 64, 128, 256}), ct.param("BN", {32, 64, 128, 256}), ct.param("BK", {8, 16, 32}),
    ct.param("SPLIT", {1, 2, 4, 8}), ct.param("W", {1, 2}),
  },
  problems = {
    {M = 4096, N = 4096, K = 4096}, {M = 2048, N = 2048, K = 2048}, {M = 1024, N = 1024, K = 1024},
    {M = 512, N = 512, K = 512}, {M = 8192, N = 8192, K = 256}, {M = 1024, N = 8192, K = 2048},
    {M = 16384, N = 128, K = 4096}, {M = 128, N = 16384, K = 4096}, {M = 256, N = 256, K = 16384},
    {M = 512, N = 512, K = 8192}, {M = 3000, N = 3000, K = 3000}, {M = 1000, N = 1000, K = 1000},
    {M = 2048, N = 4096, K = 1024}, {M = 4096, N = 1024, K = 512}, {M = 256, N = 1024, K = 4096},
    {M = 8192, N = 2048, K = 2048},
  },
  args = { ct.output("float", "M*N"), ct.input("float", "M*K"), ct.input("float", "K*N") },
  block = function(p, n) return p.BM * p.BN // 64 end,
  grid = function(p, n) return ct.cdiv(n.M, p.BM) * ct.cdiv(n.N, p.BN) * p.SPLIT end,
  flops = function(n) return 2 * n.M * n.N * n.K end,
}
