-- a module next to the space files: require "helpers" must find it, in the same sandbox
local M = {}
function M.multiple_of(a, b) return a % b == 0 end
return M
