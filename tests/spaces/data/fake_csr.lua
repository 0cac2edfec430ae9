-- Fixture for tests/cli_fake_data.sh: a CSR matrix times a vector (Kernel Tuner's spmv.py, small),
-- its row offsets made by the space. $FAKE_CSR picks where they come from:
--   (unset)  a values function per problem: sorted random offsets from 0 to nnz, as spmv.py
--            makes them ($FAKE_CSR_SHIFT: one offset moved, so the data differs);
--   random   the seeded fill (not CSR offsets: the fake kernel faults);
--   file     $FAKE_CSR_FILE, a .npy or raw int32 file of nrows+1 offsets (one problem: a file
--            is the same on every problem).
-- x comes from a list (its count omitted: the list gives it).
local ct = require "cutune"
local mode = os.getenv("FAKE_CSR")
local rows
if mode == "random" then
  rows = ct.input("int", "nrows+1", {name = "rows"})
elseif mode == "file" then
  rows = ct.input("int", "nrows+1", {name = "rows", file = os.getenv("FAKE_CSR_FILE")})
else
  rows = ct.input("int", nil, {name = "rows", values = function(n)
    local r = {}
    for i = 1, n.nrows - 1 do r[i] = math.floor(math.random() * n.nnz) end
    r[#r + 1] = 0
    table.sort(r)
    r[#r + 1] = n.nnz
    if os.getenv("FAKE_CSR_SHIFT") then r[2] = r[2] + 1 <= r[3] and r[2] + 1 or r[2] - 1 end
    return r
  end})
end
local x = {}
for i = 1, 64 do x[i] = (i % 7) - 3 end
return ct.space {
  name = "fake_csr",
  template = "fake_data.cu",
  kernel = "csr_spmv",
  params = { ct.param("B", {32, 64, 128}) },
  problems = mode == "file" and { {nrows = 256, ncols = 64, nnz = 2048} }
             or { {nrows = 256, ncols = 64, nnz = 2048}, {nrows = 1000, ncols = 64, nnz = 5000} },
  args = {
    ct.output("float", "nrows", {name = "y"}),
    rows,
    ct.input("int", "nnz", {name = "cols", lo = 0, hi = 63}),
    ct.input("float", "nnz", {name = "vals"}),
    ct.input("float", {name = "x", values = x}),
    "nrows", "ncols", "nnz",
  },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.nrows, p.B) end,
  reference = { kernel = "csr_spmv_ref", block = {64}, grid = function(n) return ct.cdiv(n.nrows, 64) end },
  timeout = 60,
}
