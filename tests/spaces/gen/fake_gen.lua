-- Fixture for tests/cli_fake_gen.sh: a program text per configuration (template_edit =
-- function(text, p), Kernel Tuner's kernel_source as a function of the parameters). The template
-- (fake_gen.cu) is a Jinja-like text; render below expands {% for k in range(U) %} (its statement
-- U times, {{ k }} the index) and {% if G %}. U is a -D parameter, G and S runtime ones (kernel
-- arguments): G is read by the generator, so its values make texts of their own, S is not, so
-- configurations that differ in S alone share a text and a module. 12 configurations, 6 texts.
-- $GEN picks the function: "raises" fails for U=4 with G=1, "number" returns no text for U=2,
-- "broken" makes U=4's 4th statement a compile error, "once" is a once-per-run edit (function(text)) that drops the loop and the condition.
-- $REF picks the reference: compiled once with p = reference.defines (default), without defines
-- ("nodefines": the generator cannot make it), or from each configuration's program ("params").
local ct = require "cutune"

local function render(text, p)
  text = text:gsub("{%% for (%w+) in range%((%w+)%) %%}\n(.-)\n[ ]*{%% endfor %%}", function(var, count, body)
    local out = {}
    for k = 0, p[count] - 1 do out[#out + 1] = (body:gsub("{{ " .. var .. " }}", tostring(k))) end
    return table.concat(out, "\n")
  end)
  text = text:gsub("{%% if (%w+) %%}\n(.-)\n[ ]*{%% endif %%}", function(name, body)
    assert(p[name] ~= nil, "the template's {% if " .. name .. " %} needs p." .. name)
    return p[name] ~= 0 and body or ""
  end)
  return text
end

local gens = {
  raises = function(text, p)
    if p.U == 4 and p.G == 1 then error("cannot unroll by " .. p.U .. " with G=1") end
    return render(text, p)
  end,
  number = function(text, p)
    if p.U == 2 then return #text end
    return render(text, p)
  end,
  broken = function(text, p) -- the 4th unrolled statement (U=4 only) names nothing NVRTC knows
    return (render(text, p):gsub("0%.0f %* 3;", "undefined_value;"))
  end,
}
-- the once-per-run edit: one text for every configuration (U reaches the kernel as -DU alone)
local function flatten(text) return (text:gsub("{%% for.-{%% endfor %%}", ""):gsub("{%% if.-{%% endif %%}", "")) end
gens.once = flatten
gens.flat = function(text, p) return flatten(text) end -- a generator that makes one text for all

local refs = {
  nodefines = { kernel = "copy_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  params = { kernel = "copy_ref", params = {"U"}, block = function(n, p) return 128 end,
             grid = function(n, p) return ct.cdiv(n.n, 128) end },
}

return ct.space {
  name = "fake_gen",
  template = "fake_gen.cu",
  kernel = "copy_ok",
  template_edit = gens[os.getenv("GEN") or ""] or render,
  params = {
    ct.param("U", {1, 2, 4}),
    ct.param("G", {0, 1}, {runtime = true}),
    ct.param("S", {0, 1}, {runtime = true}),
  },
  problem = { n = 4096 },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n"), ct.scalar("int", "S"),
           ct.scalar("int", "G") },
  block = function(p, n) return 128 end,
  grid = function(p, n) return ct.cdiv(n.n, 128) end,
  reference = refs[os.getenv("REF") or ""] or
    { kernel = "copy_ref", defines = { U = 1, G = 0 }, block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
  check = { tolerance = 0 },
  timeout = 60,
}
