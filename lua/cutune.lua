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

return ct
