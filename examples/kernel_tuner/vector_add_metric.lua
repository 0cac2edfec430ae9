-- Kernel Tuner's examples/cuda/vector_add_metric.py (the README's minimal example with
-- user-defined metrics) as a cutune space. The kernel is the Python string kernel_string inside
-- the script: template_var takes it from there (give the script's folder with --kernel-path or
-- CUTUNE_KERNEL_PATH). As the script: 32 block sizes 32..1024, 1e7 elements, one thread per
-- element. Its two metrics are functions of the time and the problem size, which cutune computes
-- for every record from flops and bytes per launch:
--   metrics["GFLOP/s"] = lambda p: (size/1e9) / (p["time"]/1000)   -> flops = n     (record gflops)
--   metrics["GB/s"] = f"({size}*4*2/1e9) / (time/1000)"             -> bytes = 8 n   (record gbps)
-- (the script's formula counts the two inputs only, 8 bytes an element, not the output's 4 more;
-- mirrored as written). Kernel Tuner prints and stores them beside the time; here they are
-- objectives to maximise beside the time, which `cutune best --space` lists on each problem's
-- front. The script checks nothing; here the reference is a plain sum (vector_add_ref.cu), exact.
local ct = require "cutune"
local base = require "vector_add" -- the same kernel, arguments, launch and reference

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.name = "kt_vector_add_metric"
spec.template = "vector_add_metric.py"
spec.params = { ct.param("block_size_x", ct.range(32, 1024, 32)) }
spec.flops = "n"
spec.bytes = "n*4*2"
spec.objectives = { "time", {"gflops", "max"}, {"gbps", "max"} }
return ct.space(spec)
