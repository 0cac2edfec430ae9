-- pin: a space restricted to the configurations listed in $CUTUNE_PIN (semicolon-separated keys
-- as in the store, "TILE=64,PAD=0,...;TILE=32,..."), for measuring a header's shipped
-- configurations with cutune in the same call as their launcher (tests/cli_gpu_launcher.sh).
-- Without $CUTUNE_PIN the space is unchanged. Use: return require "pin" (require "matmul_space").
local ct = require "cutune"
return function(s)
  local pin = os.getenv("CUTUNE_PIN")
  if pin and pin ~= "" then
    local want = {}
    for key in pin:gmatch("[^;]+") do want[key] = true end
    local names = {}
    for _, p in ipairs(s.spec.params) do names[#names + 1] = p.name end
    s.spec.constraints = s.spec.constraints or {}
    table.insert(s.spec.constraints, ct.rule(names, function(p)
      local parts = {}
      for _, n in ipairs(names) do parts[#parts + 1] = n .. "=" .. p[n] end
      return want[table.concat(parts, ",")] == true
    end, "only the configurations in $CUTUNE_PIN"))
  end
  return s
end
