-- Kernel Tuner's examples/cuda/vector_add_codegen.py as a cutune space. The script's kernel is
-- made by a Python function, my_fancy_generator(params): the string kernel_string with its %s
-- replaced by params["block_size_x"]. template_var takes that string from the script (give its
-- folder with --kernel-path or CUTUNE_KERNEL_PATH) and template_edit makes the %s the parameter's
-- name, whose value each configuration's -D gives: the program Kernel Tuner generates. As the
-- script: 15 block sizes 128..1024, 1e7 elements, one thread per element. The script checks
-- nothing; here the reference is a plain sum (vector_add_ref.cu, next to this file), exact.
local ct = require "cutune"
local base = require "vector_add"

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.name = "kt_vector_add_codegen"
spec.template = "vector_add_codegen.py"
spec.template_edit = function(text) return (text:gsub("%%s", "block_size_x")) end
return ct.space(spec)
