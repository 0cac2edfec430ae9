-- cutune: the helper library that space files `require "cutune"` (embedded in the binary).
--
-- The constructors only build tables tagged with their kind (`__ct`) and the file:line of
-- the call, so that the C loader (tuner/space/space*.c), which validates everything, can name
-- the user's line in its messages. The few helpers that compute (cdiv, pow2, range)
-- check their arguments here and raise at the caller's line.
local getinfo = debug.getinfo
local type, error, tostring, tointeger = type, error, tostring, math.tointeger

local ct = { version = "1" }

-- file and line of the user code that called a constructor (level 3: where <- ctor <- user).
-- After a tail call (`return ct.space {...}`) the caller's frame is gone: then nil, and the
-- loader falls back to the last line the space file's main chunk executed.
local function where()
  local i = getinfo(3, "Sl")
  if not i or i.what == "C" or (i.currentline or -1) < 1 then return nil, nil end
  return i.short_src, i.currentline
end

function ct.space(spec)
  local t = { spec = spec }
  t.__ct = "space"
  t.file, t.line = where()
  return t
end

-- ct.param(name, values[, opts]): opts = { runtime = true } passes the value to the kernel as an
-- argument (a ct.scalar whose value reads it) instead of -DNAME=value, so that configurations
-- differing only in runtime parameters share one compile.
function ct.param(name, values, opts)
  local t = { name = name, values = values, opts = opts }
  t.__ct = "param"
  t.file, t.line = where()
  return t
end

function ct.rule(params, fn, desc)
  local t = { params = params, fn = fn, desc = desc }
  t.__ct = "rule"
  t.file, t.line = where()
  return t
end

-- kernel arguments: ct.input(type, count[, opts]) etc.; ct.scalar(type, value[, opts])
local function argctor(kind)
  return function(etype, size, opts)
    local t = { kind = kind, type = etype, size = size, opts = opts }
    t.__ct = "arg"
    t.file, t.line = where()
    return t
  end
end
ct.input = argctor("input")
ct.output = argctor("output")
ct.inout = argctor("inout")
ct.scalar = argctor("scalar")
ct.out = ct.output -- spelling used in early sketches

-- ct.tensormap { buffer = "A", dims = {...}, box = {...} [, strides =, swizzle =, optional =,
-- name =, dtype =] }: a CUtensorMap of buffer argument A (Hopper's TMA), encoded by the GPU worker
-- per configuration and passed by value (`const __grid_constant__ CUtensorMap`): docs/SPACE.md
function ct.tensormap(spec)
  local t = { kind = "tensormap", spec = spec }
  t.__ct = "arg"
  t.file, t.line = where()
  return t
end

-- ct.launch { kernel = ..., args = {names}, block = ..., grid = ... [, shared =, defines = {...}] }:
-- one launch of a configuration's sequence (launches = { ... })
function ct.launch(spec)
  local t = { spec = spec }
  t.__ct = "launch"
  t.file, t.line = where()
  return t
end

-- ct.symbol(name, type, count[, opts]): a __constant__ or __device__ variable filled per problem
-- (opts: fill/lo/hi, values = {...} or function(n), file = "x.npy", from = "buffer name")
function ct.symbol(name, etype, count, opts)
  if opts == nil and type(count) == "table" then count, opts = nil, count end
  local t = { name = name, type = etype, count = count, opts = opts }
  t.__ct = "symbol"
  t.file, t.line = where()
  return t
end

local function int_arg(fname, i, v)
  local n = type(v) == "number" and tointeger(v)
  if not n then
    error(("ct.%s: argument %d must be an integer (got %s)"):format(fname, i,
      type(v) == "number" and tostring(v) or type(v)), 3)
  end
  return n
end

-- ceil(a / b) for integers, b > 0: the usual grid-size helper
function ct.cdiv(a, b)
  a, b = int_arg("cdiv", 1, a), int_arg("cdiv", 2, b)
  if b <= 0 then error(("ct.cdiv: divisor must be positive (got %d)"):format(b), 2) end
  return (a + b - 1) // b
end

-- the powers of two in [lo, hi]: ct.pow2(1, 64) == {1, 2, 4, 8, 16, 32, 64}
function ct.pow2(lo, hi)
  lo, hi = int_arg("pow2", 1, lo), int_arg("pow2", 2, hi)
  if lo < 1 then lo = 1 end
  local t, v = {}, 1
  while v < lo do v = v * 2 end
  while v <= hi do t[#t + 1] = v; v = v * 2 end
  if #t == 0 then error(("ct.pow2: no power of two in [%d, %d]"):format(lo, hi), 2) end
  return t
end

-- a, a+step, ... up to and including b: ct.range(1, 4) == {1, 2, 3, 4}
function ct.range(a, b, step)
  a, b = int_arg("range", 1, a), int_arg("range", 2, b)
  step = step == nil and 1 or int_arg("range", 3, step)
  if step == 0 then error("ct.range: step must not be 0", 2) end
  local t = {}
  for v = a, b, step do t[#t + 1] = v end
  if #t == 0 then error(("ct.range: empty range %d..%d step %d"):format(a, b, step), 2) end
  return t
end

-- Shape sets (docs/SPACE.md, "Shape sets"): many problems at once, for `problems` or as items of
-- its list. ct.product{M = {...}, N = {...}, K = {...} [, where = function(n) ... end]} is every
-- combination of the listed sizes (names in sorted order, the last varying fastest) for which
-- `where(n)` (if given) returns true; ct.zip{M = {...}, N = {...}} pairs the i-th sizes of lists
-- of one length. Both check their arguments here (errors at the caller's line) and count before
-- they build: at most ct.max_problems shapes (the loader's cap, CUTUNE_MAX_PROBLEMS), and for a
-- product with `where` at most 16 times that many combinations tried.
ct.max_problems = 65536 -- replaced by the loader with its cap

local function size_lists(fname, spec)
  if type(spec) ~= "table" then
    error(("ct.%s expects a table {M = {sizes...}, ...} (got %s)"):format(fname, type(spec)), 3)
  end
  local names, lists, keep = {}, {}, nil
  for k, v in pairs(spec) do
    if k == "where" and fname == "product" then
      if type(v) ~= "function" then
        error(("ct.product: where must be a function(n) returning true or false (got %s)"):format(type(v)), 3)
      end
      keep = v
    elseif type(k) ~= "string" or not k:match("^[%a_][%w_]*$") then
      error(("ct.%s: size names must be identifiers (got %s %s)"):format(fname, type(k), tostring(k)), 3)
    else
      if type(v) ~= "table" or #v == 0 then
        error(("ct.%s: %s must be a non-empty list of integer sizes (got %s)"):format(fname, k,
          type(v) == "table" and "an empty table" or type(v)), 3)
      end
      for i = 1, #v do
        if not (type(v[i]) == "number" and tointeger(v[i])) then
          error(("ct.%s: %s[%d] must be an integer (got %s)"):format(fname, k, i,
            type(v[i]) == "number" and tostring(v[i]) or type(v[i])), 3)
        end
      end
      names[#names + 1] = k
      lists[k] = v
    end
  end
  if #names == 0 then error(("ct.%s: no sizes given (expected {M = {sizes...}, ...})"):format(fname), 3) end
  table.sort(names)
  return names, lists, keep
end

local function shape_set(what, list, file, line)
  local t = { list = list, what = what, file = file, line = line }
  t.__ct = "shapes"
  return t
end

function ct.product(spec)
  local file, line = where()
  local names, lists, keep = size_lists("product", spec)
  local count, dims = 1, {}
  for i, k in ipairs(names) do
    count = count * #lists[k]
    dims[i] = ("%d"):format(#lists[k])
  end
  local cap = keep and 16 * ct.max_problems or ct.max_problems
  if count > cap then
    error(("ct.product: %s = %.0f %s, more than %d (the cap on a space's problems%s; raise it with "
      .. "CUTUNE_MAX_PROBLEMS=N)"):format(table.concat(dims, " x "), count, keep and "combinations" or "shapes",
      cap, keep and ", times 16 with where" or ""), 2)
  end
  local out, idx = {}, {}
  for i = 1, #names do idx[i] = 1 end
  for _ = 1, count do
    local n = {}
    for i, k in ipairs(names) do n[k] = lists[k][idx[i]] end
    local ok = true
    if keep then
      ok = keep(n)
      if type(ok) ~= "boolean" then
        error(("ct.product: where returned %s (expected true or false)"):format(type(ok)), 2)
      end
    end
    if ok then out[#out + 1] = n end
    for i = #names, 1, -1 do -- the last name varies fastest
      idx[i] = idx[i] + 1
      if idx[i] <= #lists[names[i]] then break end
      idx[i] = 1
    end
  end
  return shape_set("ct.product", out, file, line)
end

function ct.zip(spec)
  local file, line = where()
  local names, lists = size_lists("zip", spec)
  local len = #lists[names[1]]
  for _, k in ipairs(names) do
    if #lists[k] ~= len then
      error(("ct.zip: every list must have the same length (%s has %d, %s has %d)"):format(names[1], len, k,
        #lists[k]), 2)
    end
  end
  if len > ct.max_problems then
    error(("ct.zip: %d shapes, more than %d (the cap on a space's problems; raise it with "
      .. "CUTUNE_MAX_PROBLEMS=N)"):format(len, ct.max_problems), 2)
  end
  local out = {}
  for i = 1, len do
    local n = {}
    for _, k in ipairs(names) do n[k] = lists[k][i] end
    out[i] = n
  end
  return shape_set("ct.zip", out, file, line)
end

return ct
