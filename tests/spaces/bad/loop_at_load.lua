-- expect: the space's Lua code ran more than 1e+07 instructions in one call from cutune (a loop that never ends?); raise the limit with CUTUNE_LUA_INSTRUCTIONS=N
local n = 0
while true do n = n + 1 end --@
