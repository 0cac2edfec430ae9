-- Loops for ever: stopped by the instruction count, or by the clock when that is set high.
while true do end
