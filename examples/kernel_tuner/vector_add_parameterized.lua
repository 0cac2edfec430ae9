-- Kernel Tuner's examples/cuda/test_vector_add_parameterized.py (a pytest test that runs the
-- kernel once per block size with run_kernel and compares with a + b) as a cutune space. The
-- kernel is the Python string kernel_string inside the test's fixture: template_var takes it
-- from there (give the script's folder with --kernel-path or CUTUNE_KERNEL_PATH). As the test: the
-- six block sizes 32..1024 (powers of two), 1000 elements (problem size (1000, 1): one thread
-- per element), and its assertion numpy.allclose(answer, a + b, atol=1e-8) (rtol 1e-5). The
-- reference is the same kernel in a fixed configuration, 32 threads a block (reference.defines):
-- the sum of two floats is exact, so it is a + b.
local ct = require "cutune"
return ct.space {
  name = "kt_vector_add_parameterized",
  template = "test_vector_add_parameterized.py",
  template_var = "kernel_string",
  kernel = "vector_add",
  params = { ct.param("block_size_x", ct.pow2(32, 1024)) },
  problem = { n = 1000 },
  args = { ct.output("float", "n", {name = "c"}), ct.input("float", "n", {name = "a"}),
           ct.input("float", "n", {name = "b"}), ct.scalar("int", "n") },
  block = function(p, n) return p.block_size_x end,
  grid = function(p, n) return ct.cdiv(n.n, p.block_size_x) end,
  reference = { kernel = "vector_add", defines = { block_size_x = 32 }, block = {32},
                grid = function(n) return ct.cdiv(n.n, 32) end },
  check = { atol = 1e-8, rtol = 1e-5 },
  bytes = function(n) return 12 * n.n end,
}
