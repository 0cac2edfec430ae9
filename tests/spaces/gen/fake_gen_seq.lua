-- Fixture for tests/cli_fake_gen.sh: tests/spaces/realk/fake_seq.lua's launch sequence (a
-- reduction's two passes; pass 2 a program of its own, its launch's defines PASS = 2) with its
-- programs made by a generator: pass 2's gets p with PASS set, pass 1's the configuration's alone
-- (PASS 1 by default). $GEN=pass2 raises for pass 2's program: the message names the
-- configuration and that define.
local ct = require "cutune"
local base = require "realk.fake_seq"
local pass2 = os.getenv("GEN") == "pass2"
local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.name = "fake_gen_seq"
spec.template = "fake_gen_seq.cu"
spec.template_edit = function(text, p)
  if pass2 and p.PASS == 2 then error("no pass 2 for G=" .. p.G) end
  return (text:gsub("{{ (%w+) }}", function(k) return tostring(p[k] or 1) end))
end
return ct.space(spec)
