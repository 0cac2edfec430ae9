-- The transpose space with time and energy as objectives: `cutune run` times every
-- configuration it is given, then measures energy (NVML, 0.5 s windows) for those near the time
-- front (--energy-top, --energy-within); `cutune best --space lua/transpose_energy.lua` prints
-- the time/energy Pareto front. bench/gpu_session.sh energy runs it with a small budget.
local s = require "transpose_space"
s.spec.objectives = { "time", "energy" }
return s
