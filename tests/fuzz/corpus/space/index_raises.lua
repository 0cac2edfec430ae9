-- expect: x (raised while cutune read the table the space file returned)
return setmetatable({}, {__index = function() error("x") end}) --@
