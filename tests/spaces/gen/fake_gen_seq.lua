-- Fixture for tests/cli_fake_gen.sh: a launch sequence (a reduction's two passes, as
-- tests/spaces/realk/fake_seq.lua) whose programs a generator makes: pass 2's program (its
-- launch's defines, PASS = 2) gets p with PASS set, pass 1's the configuration's alone. $GEN=pass2
-- raises for pass 2's program: the message names the configuration and that p.
local ct = require "cutune"
local pass2 = os.getenv("GEN") == "pass2"
return ct.space {
  name = "fake_gen_seq",
  template = "fake_gen_seq.cu",
  template_edit = function(text, p)
    if pass2 and p.PASS == 2 then error("no pass 2 for G=" .. p.G) end
    return (text:gsub("{{ (%w+) }}", function(k) return tostring(p[k] or 1) end))
  end,
  params = { ct.param("G", {8, 16, 64}) },
  problem = { n = 65536 },
  args = {
    ct.output("float", 1, {name = "out", rtol = 1e-5}),
    ct.output("float", function(n, p) return p.G end, {name = "partial", check = false}),
    ct.input("float", "n", {name = "in", lo = 0, hi = 1}),
    ct.scalar("int", "n", {name = "n"}),
    ct.scalar("int", function(n, p) return p.G end, {name = "nparts"}),
  },
  launches = {
    ct.launch { kernel = "partial_sum", args = {"partial", "in", "n"}, block = {256}, grid = function(p, n) return p.G end },
    ct.launch { kernel = "partial_sum", defines = { PASS = 2 }, args = {"out", "partial", "nparts"},
                block = {256}, grid = {1} },
  },
  reference = { kernel = "total_sum", args = {"out", "in", "n"}, block = {256}, grid = {1} },
  timeout = 60,
}
