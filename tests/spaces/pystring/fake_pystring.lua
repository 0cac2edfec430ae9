-- Fixture for tests/cli_fake_pystring.sh: the kernel is a Python string of kernels.py
-- (template_var, $PYVAR: kernel_string by default), and the reference is the same kernel in a
-- fixed configuration (reference.defines, no reference.template): it must be compiled from the
-- string too, not from the whole Python file. $EDIT picks a template_edit: "percent" makes the
-- %s placeholder of kernel_format the parameter's macro, "jinja" each {{ name }} the name (and
-- real_type float), "number" returns no text.
local ct = require "cutune"
local edits = {
  percent = function(text) return (text:gsub("%%s", "BLOCK")) end,
  jinja = function(text)
    return (text:gsub("{{([^}]*)}}", function(e)
      local name = e:match("^%s*([%w_]+)%s*$")
      return name == "real_type" and "float" or name
    end))
  end,
  number = function(text) return #text end,
  -- for kernel_broken, whose error must keep its line of kernels.py: two lines added before the
  -- text, one taken out of it before the error
  prepend = function(text) return "#define CUTUNE_A 1\n#define CUTUNE_B 2\n" .. text end,
  drop = function(text) return (text:gsub("\n[^\n]*the drop edit removes[^\n]*", "", 1)) end,
}
return ct.space {
  name = "fake_pystring",
  template = "kernels.py",
  template_var = os.getenv("PYVAR") or "kernel_string",
  template_edit = edits[os.getenv("EDIT") or ""],
  kernel = "copy_ok",
  params = { ct.param("BLOCK", {64, 128, 256}) },
  problem = { n = 4096 },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.BLOCK end,
  grid = function(p, n) return ct.cdiv(n.n, p.BLOCK) end,
  reference = { kernel = "copy_ok", defines = { BLOCK = 32 }, block = {32}, grid = function(n) return ct.cdiv(n.n, 32) end },
  timeout = 60,
}
