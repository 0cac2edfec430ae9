-- Kernel Tuner's examples/cuda/accuracy.py (TunablePrecision) as a cutune space. The kernel is the
-- Python string kernel_string inside the script: template_var takes it from there (give the
-- script's folder with --kernel-path or CUTUNE_KERNEL_PATH). As the script: block_size_x
-- 128..1024 step 64 x float_type {"float", "double", "half"} (45 configurations), 1e7 elements,
-- vector_add a C++ kernel reading blockDim.x (block_size_x only sets the launch). float_type is a
-- string parameter, passed as -Dfloat_type=half; the three arrays follow it, as TunablePrecision
-- converts the script's float64 arrays to the type: each is typed by the configuration
-- (ct.input(function(p) return p.float_type end, ...)), filled with the same seeded draws rounded
-- to each type (the script's are randn; the sum's time does not depend on the values). The script
-- checks nothing; here the reference is vector_add itself in double (reference.defines), and each
-- configuration's output is compared with it in double within a bound for its type: double exact
-- (the same sums), float 1e-6 (two inputs and the sum rounded to float: |error| < 4e-7 for
-- |a|, |b| < 1), half 2e-3 (the same in half: < 1e-3).
local ct = require "cutune"
local float_type = function(p) return p.float_type end
return ct.space {
  name = "kt_accuracy",
  template = "accuracy.py",
  template_var = "kernel_string",
  kernel = "vector_add",
  params = {
    ct.param("block_size_x", ct.range(128, 1024, 64)),
    ct.param("float_type", {"float", "double", "half"}),
  },
  problem = { n = 10000000 },
  args = {
    ct.scalar("int", "n"),
    ct.input(float_type, "n", {name = "left"}),
    ct.input(float_type, "n", {name = "right"}),
    ct.output(float_type, "n", {name = "output", atol = {double = 0, float = 1e-6, half = 2e-3},
                                rtol = {double = 0, float = 0, half = 0}}),
  },
  block = function(p, n) return p.block_size_x end,
  grid = function(p, n) return ct.cdiv(n.n, p.block_size_x) end,
  reference = { kernel = "vector_add", defines = { float_type = "double" }, block = {256},
                grid = function(n) return ct.cdiv(n.n, 256) end },
}
