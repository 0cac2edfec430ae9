-- expect: string.find: the pattern "%s*%s*x" on a subject of 2000 bytes could backtrack
-- Two repetitions of one class in a row: each run of the first hands the second every shorter
-- run (n^3 on 2000 spaces), though the last one is followed by what it cannot match.
local s = string.rep(" ", 2000)
local i = s:find("%s*%s*x") --@
