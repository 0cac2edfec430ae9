-- Kernel Tuner's examples/cuda/vector_add.py (the README's minimal example) as a cutune space. Its
-- kernel is not a file but the Python string kernel_string inside the script: template_var takes
-- the kernel from there (give the script's folder with --kernel-path or CUTUNE_KERNEL_PATH). The
-- same parameter (15 block sizes), 1e7 elements, one thread per element. The script checks
-- nothing; here the reference is a plain sum (vector_add_ref.cu, next to this file), exact.
local ct = require "cutune"
return ct.space {
  name = "kt_vector_add",
  template = "vector_add.py",
  template_var = "kernel_string",
  kernel = "vector_add",
  params = { ct.param("block_size_x", ct.range(128, 1024, 64)) },
  problem = { n = 10000000 },
  args = { ct.output("float", "n", {name = "c"}), ct.input("float", "n", {name = "a"}),
           ct.input("float", "n", {name = "b"}), ct.scalar("int", "n") },
  block = function(p, n) return p.block_size_x end,
  grid = function(p, n) return ct.cdiv(n.n, p.block_size_x) end,
  reference = { kernel = "kt_vector_add_ref", template = "vector_add_ref.cu", block = {256},
                grid = function(n) return ct.cdiv(n.n, 256) end },
  bytes = function(n) return 12 * n.n end,
}
