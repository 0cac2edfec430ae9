-- Fixture for tests/cli_fake_init.sh: init_state sets up the state once per problem (the space's
-- init, one program compiled with -DCUTUNE_INIT=1 and its defines), before the reference;
-- draw_state, tuned over BLOCK, reads it and advances it (an inout, restored before each run to
-- what the init left). The reference is draw_state in a fixed configuration (reference.defines).
-- args is the pool the launches draw from: the seed is the init's alone.
-- $FAKE_INIT: "none" leaves the init out (the state is the seeded fill: draw_state fails),
-- "nosuch" names a kernel the program lacks, "wide" runs it in blocks of 256 (the same state, by
-- another launch: another check hash), "bigsmem" gives the init and the reference 64 KB of dynamic
-- shared memory (each needs the opt-in over 48 KB before its launch).
local ct = require "cutune"
local mode = os.getenv("FAKE_INIT") or ""
local ib = mode == "wide" and 256 or 128
local sm = mode == "bigsmem" and 64 * 1024 or nil
local init = {
  ct.launch { kernel = mode == "nosuch" and "nosuch" or "init_state", args = {"state", "seed", "n"},
              defines = { BLOCK = ib }, block = {ib}, grid = function(n) return ct.cdiv(n.n, ib) end, shared = sm },
}
return ct.space {
  name = "fake_init",
  template = "fake_init.cu",
  params = { ct.param("BLOCK", {64, 128, 256}) },
  problem = { n = 4096 },
  args = {
    ct.output("float", "n", {name = "out"}),
    ct.inout("float", "n", {name = "state"}),
    ct.scalar("int", "n", {name = "n"}),
    ct.scalar("int64", 42, {name = "seed"}),
  },
  init = mode ~= "none" and init or nil,
  launches = { ct.launch { kernel = "draw_state", args = {"out", "state", "n"},
                           block = function(p, n) return p.BLOCK end, grid = function(p, n) return ct.cdiv(n.n, p.BLOCK) end } },
  reference = { kernel = "draw_state", args = {"out", "state", "n"}, defines = { BLOCK = 32 }, block = {32},
                grid = function(n) return ct.cdiv(n.n, 32) end, shared = sm },
  timeout = 60,
}
