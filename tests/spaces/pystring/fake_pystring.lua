-- Fixture for tests/cli_fake_pystring.sh: the kernel is a Python string of kernels.py
-- (template_var, $PYVAR: kernel_string by default), and the reference is the same kernel in a
-- fixed configuration (reference.defines, no reference.template): it must be compiled from the
-- string too, not from the whole Python file.
local ct = require "cutune"
return ct.space {
  name = "fake_pystring",
  template = "kernels.py",
  template_var = os.getenv("PYVAR") or "kernel_string",
  kernel = "copy_ok",
  params = { ct.param("BLOCK", {64, 128, 256}) },
  problem = { n = 4096 },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.BLOCK end,
  grid = function(p, n) return ct.cdiv(n.n, p.BLOCK) end,
  reference = { kernel = "copy_ok", defines = { BLOCK = 32 }, block = {32}, grid = function(n) return ct.cdiv(n.n, 32) end },
  timeout = 60,
}
