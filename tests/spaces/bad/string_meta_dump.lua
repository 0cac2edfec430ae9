-- expect: attempt to call a nil value (field 'dump')
local f = ("").dump(function() end) --@
return f
