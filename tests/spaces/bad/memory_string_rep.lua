-- expect: the space's Lua code needs more than 64 MiB of memory
local s = string.rep("x", 1e9) --@
