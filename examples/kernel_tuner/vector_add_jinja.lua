-- Kernel Tuner's examples/cuda/vector_add_jinja.py as a cutune space. The script's kernel is a
-- Jinja template, kernel_template = Template("""..."""), rendered per configuration with the
-- tuning parameters ({{ block_size_x }}). template_var takes the template's text from the script
-- (give its folder with --kernel-path or CUTUNE_KERNEL_PATH) and template_edit makes each
-- {{ name }} the parameter's name, whose value each configuration's -D gives: the text Jinja
-- renders. As the script: 15 block sizes 128..1024, 1e7 elements, one thread per element. The
-- script checks nothing; here the reference is a plain sum (vector_add_ref.cu), exact.
-- vector_add_jinja2.py (the template file vector_add_jinja.cu: {% for %} over tiling_x, a
-- string-valued real_type) is not mirrored: its text differs by configuration in more than
-- values (docs/KERNEL_TUNER.md).
local ct = require "cutune"
local base = require "vector_add"

local spec = {}
for k, v in pairs(base.spec) do spec[k] = v end
spec.name = "kt_vector_add_jinja"
spec.template = "vector_add_jinja.py"
spec.template_var = "kernel_template"
spec.template_edit = function(text)
  return (text:gsub("{{([^}]*)}}", function(e) return e:match("^%s*([%w_]+)%s*$") end))
end
return ct.space(spec)
