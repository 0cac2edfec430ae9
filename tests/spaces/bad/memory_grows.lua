-- expect: the space's Lua code needs more than 64 MiB of memory (the limit; raise it with CUTUNE_LUA_MEMORY=MiB)
local t = {}
for i = 1, 1e9 do t[i] = {i} end --@
