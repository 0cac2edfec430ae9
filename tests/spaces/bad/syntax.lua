-- expect: '}' expected (to close '{' at line 3) near 'kernel'
local ct = require "cutune"
return ct.space {
  template = "tiny.cu"
  kernel = "tiny", --@
}
