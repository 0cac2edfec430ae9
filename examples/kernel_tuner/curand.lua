-- Kernel Tuner's examples/cuda/curand.py as a cutune space. Its kernel is the Python string
-- kernel_string inside the script: template_var takes it from there (give the script's folder with
-- --kernel-path or CUTUNE_KERNEL_PATH). The script sets the curandState array up once with
-- run_kernel("setup_kernel", ..., {"block_size_x": 256, "unroll_draws": 1}) and tunes
-- generate_random (a C++ kernel) on the state that returns; here that is the space's init: the
-- same kernel, compiled once with those defines (and -DCUTUNE_INIT=1), launched once per problem
-- after the buffers are filled and before the reference, so its curand_init's output is the
-- state's initial contents. As the script: block_size_x 32..1024 step 32 x unroll_draws
-- {1, 2, 4, 8, 16} (#pragma unroll unroll_draws; 160 configurations), 1e7 elements, the state
-- 48 bytes an element (curandStateXORWOW, zeros before the init), seed 42, --dopt=on.
-- generate_random draws from the state and writes it back, so every launch advances it: it is an
-- inout, restored to the init's output before each run (the reference's, each configuration's
-- check), so each check draws what the reference drew. The script checks nothing; here the
-- reference is generate_random itself at the setup's configuration (256 threads, no unrolling),
-- its output within Kernel Tuner's default tolerance (atol 1e-6, rtol 1e-5; the sums are the same
-- 16 draws added in the same order). The state is not compared: the 4 padding bytes of each
-- curandStateXORWOW are not the kernel's to write, and the draws already read the whole state.
-- setup_kernel is extern "C" and takes a seed the tuned kernel does not: args is the pool both
-- launches draw from (launches, init), each naming its own.
local ct = require "cutune"
local n = 10000000
local block = function(p, n) return p.block_size_x end
local grid = function(p, n) return ct.cdiv(n.n, p.block_size_x) end
return ct.space {
  name = "kt_curand",
  template = "curand.py",
  template_var = "kernel_string",
  params = {
    ct.param("block_size_x", ct.range(32, 1024, 32)),
    ct.param("unroll_draws", {1, 2, 4, 8, 16}),
  },
  problem = { n = n },
  args = {
    ct.output("float", "n", {name = "output", atol = 1e-6, rtol = 1e-5}),
    ct.inout("uint8", "n*48", {name = "state", fill = "zero", check = false}),
    ct.scalar("int", "n", {name = "n"}),
    ct.scalar("int64", 42, {name = "seed"}),
  },
  init = {
    ct.launch { kernel = "setup_kernel", args = {"state", "seed", "n"}, defines = { block_size_x = 256, unroll_draws = 1 },
                block = {256}, grid = function(n) return ct.cdiv(n.n, 256) end },
  },
  launches = {
    ct.launch { kernel = "generate_random", args = {"output", "state", "n"}, block = block, grid = grid },
  },
  reference = { kernel = "generate_random", args = {"output", "state", "n"},
                defines = { block_size_x = 256, unroll_draws = 1 }, block = {256},
                grid = function(n) return ct.cdiv(n.n, 256) end },
  options = { "--dopt=on" },
  bytes = function(n) return n.n * (48 * 2 + 4) end,
}
