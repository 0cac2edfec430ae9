-- expect: setmetatable: __gc (finalizers) is not available in a space file
local ct = require "cutune"
keep = setmetatable({}, {__gc = function() while true do end end}) --@
