#!/usr/bin/env bash
# Buffers filled from the space's data (ct.input/ct.inout values or file, docs/SPACE.md) end to
# end through the fake libcuda.so.1 (tests/fake), whose csr_spmv faults unless its row offsets
# are CSR's (sorted, 0 to nnz): a values function's sorted offsets reach the configurations and
# the reference, where the seeded fill makes the reference fault; the function's math.random is
# seeded, so a second run is answered by the store; other data (one offset moved) measures again
# under another check hash; the offsets from a .npy and from a raw int32 file; a file whose
# count disagrees with the space's names both sizes; an inout from a list, restored from it for
# every configuration's check.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/data/fake_csr.lua tests/spaces/data/fake_data.cu "$d/"
R="$TMPROOT/results"
S="$R/Fake_H200/fake_csr.jsonl"
lines() { grep -c '"status"' "$1" || true; }

expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_csr.lua"
[ "$(grep -c '"status":"ok"' "$S")" -eq 6 ] && ok || fail "values function: not 6 ok"
[ "$(grep -o '"check_hash":"[0-9a-f]*"' "$S" | sort -u | wc -l)" -eq 2 ] && ok || fail "not one check hash per problem"

expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_csr.lua"
[ "$(lines "$S")" -eq 6 ] && ok || fail "the same data measured again ($(lines "$S") records; math.random not seeded?)"
expect_output "3 from the results store" "the second run"

FAKE_CSR_SHIFT=1 expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_csr.lua"
[ "$(lines "$S")" -eq 12 ] && ok || fail "other data did not measure again ($(lines "$S") records, wanted 12)"
[ "$(grep -o '"check_hash":"[0-9a-f]*"' "$S" | sort -u | wc -l)" -eq 4 ] && ok || fail "other data, same check hash"

FAKE_CSR=random expect_status 1 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/r-random" "$d/fake_csr.lua"
expect_output "reference kernel 'csr_spmv_ref'" "the seeded fill's offsets"

# the offsets of one problem (nrows 256, nnz 2048: 8 per row) from files
python3 - "$d" <<'PY'
import struct, sys
rows = struct.pack("<257i", *[8 * i for i in range(257)])
h = "{'descr': '<i8', 'fortran_order': False, 'shape': (257,), }"
h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
with open(sys.argv[1] + "/rows.npy", "wb") as f:  # int64 in the file: converted to the buffer's int
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + struct.pack("<257q", *[8 * i for i in range(257)]))
open(sys.argv[1] + "/rows.bin", "wb").write(rows)
open(sys.argv[1] + "/short.bin", "wb").write(rows[:-4])
PY
FAKE_CSR=file FAKE_CSR_FILE=rows.npy expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/r-npy" "$d/fake_csr.lua"
[ "$(grep -c '"status":"ok"' "$TMPROOT/r-npy/Fake_H200/fake_csr.jsonl")" -eq 3 ] && ok || fail ".npy offsets: not 3 ok"
FAKE_CSR=file FAKE_CSR_FILE=rows.bin expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/r-npy" "$d/fake_csr.lua"
[ "$(lines "$TMPROOT/r-npy/Fake_H200/fake_csr.jsonl")" -eq 3 ] && ok || fail "the same data from a raw file measured again"
FAKE_CSR=file FAKE_CSR_FILE=short.bin expect_status 1 -- "$BIN" space "$d/fake_csr.lua"
expect_output "on problem ncols=64,nnz=2048,nrows=256: the element count is 257 but the file holds 256" "a short file"
FAKE_CSR=file FAKE_CSR_FILE=nosuch.npy expect_status 1 -- "$BIN" space "$d/fake_csr.lua"
expect_output "file 'nosuch.npy' not found" "a missing file"

# an inout buffer from a list: each configuration's check run starts from the list again (the
# fake's accumulate adds the input to it), as the reference's did; other data measures again
cp tests/spaces/data/fake_acc.lua "$d/"
RA="$TMPROOT/r-acc"
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$RA" "$d/fake_acc.lua"
[ "$(grep -c '"status":"ok"' "$RA/Fake_H200/fake_acc.jsonl")" -eq 3 ] && ok || fail "inout from data: not 3 ok"
FAKE_ACC_HALF=1 expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$RA" "$d/fake_acc.lua"
[ "$(grep -c '"status":"ok"' "$RA/Fake_H200/fake_acc.jsonl")" -eq 6 ] && ok || fail "inout from other data: not measured again"
finish
