-- expect: string.find: the pattern ".-.-.-.-.-.-.-b" on a subject of 100000 bytes could backtrack
local s = string.rep("a", 100000)
local i = s:find(".-.-.-.-.-.-.-b") --@
