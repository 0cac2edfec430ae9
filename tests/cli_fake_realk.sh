#!/usr/bin/env bash
# Real kernels as they are, end to end through the fake libcuda.so.1 (tests/fake): C++ kernels by
# name (a template in a namespace instantiated with a parameter: its lowered name reaches the
# worker, and the fake's copy_tpl<K> scales by K, so only K=1 matches a copy), device limits as
# data (a 2048-thread block is recorded invalid and does not make the exit status 3), a
# __constant__ array filled from a Lua table (zeros pass, ones fail), a reference run from each
# configuration's own program (copy_tpl<2> against itself passes), the check of a reduction
# (partial sums over any grid against the total), timing only (check = false), a launch sequence
# (a reduction's two passes, the second in a program of its own), a check kernel of the space's
# own, an output allowed a few mismatches (its own or the space's check.mismatches), static
# shared memory past 48 KB in any entry of the program as invalid, and `cutune space`.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/realk/* "$d/"
R="$TMPROOT/results"
st() { grep -c "\"status\":\"$2\"" "$R/Fake_H200/$1.jsonl" || true; }

run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_tpl.lua"
[ "$STATUS" -eq 3 ] && ok || fail "fake_tpl exited $STATUS (wanted 3: K=2 is wrong)"
[ "$(st fake_tpl ok)" -eq 2 ] && [ "$(st fake_tpl wrong_result)" -eq 2 ] && [ "$(st fake_tpl invalid)" -eq 2 ] && ok ||
  fail "fake_tpl: $(st fake_tpl ok) ok, $(st fake_tpl wrong_result) wrong, $(st fake_tpl invalid) invalid (wanted 2, 2, 2)"
grep '"status":"ok"' "$R/Fake_H200/fake_tpl.jsonl" | grep -q 'K=1' && ok || fail "the ok records are not K=1"
grep '"status":"invalid"' "$R/Fake_H200/fake_tpl.jsonl" | grep -q 'must be an integer in 1..1024 (x is 2048)' && ok || fail "invalid names no limit"
# the problem's line counts the two over the limit apart from the two failures
expect_output "6 measured (2 failed, 2 invalid)" "the invalid ones counted apart"
R1="$TMPROOT/results-k1"
FAKE_K=1 expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R1" "$d/fake_tpl.lua"
R2="$TMPROOT/results-ref"
FAKE_REF_PER_CONFIG=1 expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R2" "$d/fake_tpl.lua"
[ "$(grep -c '"status":"ok"' "$R2/Fake_H200/fake_tpl.jsonl")" -eq 4 ] && ok || fail "per-configuration reference: not 4 ok"

expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_const.lua"
[ "$(st fake_const ok)" -eq 2 ] && ok || fail "fake_const with zeros: not 2 ok"
R3="$TMPROOT/results-ones"
FAKE_ONES=1 run_any "$BIN" run --jobs 2 --no-progress --results "$R3" "$d/fake_const.lua"
[ "$STATUS" -eq 4 ] && ok || fail "fake_const with ones exited $STATUS (wanted 4: none right)"

# from files: a .npy of 16 float64 zeros (converted to float) passes, raw float ones fail, and a
# .npy of the wrong dtype is an error at load
npy() { # npy FILE DESCR BYTES_PER_ELEM: a .npy v1.0 of 16 zero elements
  local h="{'descr': '$2', 'fortran_order': False, 'shape': (16,), }"
  while [ $(( (10 + ${#h} + 1) % 64 )) -ne 0 ]; do h="$h "; done
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(( (${#h} + 1) % 256 )))\\x$(printf %02x $(( (${#h} + 1) / 256 )))";
    printf '%s\n' "$h"; head -c $((16 * $3)) /dev/zero; } >"$1"
}
npy "$d/zeros.npy" '<f8' 8
R6="$TMPROOT/results-npy"
FAKE_CONST_FILE="$d/zeros.npy" expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R6" "$d/fake_const.lua"
printf '\x00\x00\x80\x3f%.0s' $(seq 16) >"$d/ones.bin"
R7="$TMPROOT/results-raw"
FAKE_CONST_FILE="$d/ones.bin" run_any "$BIN" run --jobs 2 --no-progress --results "$R7" "$d/fake_const.lua"
[ "$STATUS" -eq 4 ] && ok || fail "raw ones exited $STATUS (wanted 4)"
npy "$d/cplx.npy" '<c8' 8
FAKE_CONST_FILE="$d/cplx.npy" expect_status 1 -- "$BIN" space "$d/fake_const.lua"
expect_output "a dtype other than f4, f8" "a .npy of complex numbers"

expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_reduce.lua"
[ "$(st fake_reduce ok)" -eq 3 ] && ok || fail "fake_reduce: $(st fake_reduce ok) ok (wanted 3)"
R4="$TMPROOT/results-unchecked"
FAKE_UNCHECKED=1 expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R4" "$d/fake_reduce.lua"
expect_output "UNCHECKED: timing only" "the table of a timing-only run"
[ "$(grep -c '"unchecked":1' "$R4/Fake_H200/fake_reduce.jsonl")" -eq 3 ] && ok || fail "records not marked unchecked"
FAKE_UNCHECKED=1 expect_status 1 -- "$BIN" header "$d/fake_reduce.lua" "$R4"
expect_output "timing only (check = false)" "header refuses unchecked"
FAKE_UNCHECKED=1 expect_status 0 -- "$BIN" header --allow-unchecked "$d/fake_reduce.lua" "$R4" -o "$TMPROOT/u.h"
grep -q -- '--allow-unchecked' "$TMPROOT/u.h" && ok || fail "the header does not say --allow-unchecked"

# the space's own check kernel: only K=2 passes it
run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_usercheck.lua"
[ "$STATUS" -eq 3 ] && ok || fail "fake_usercheck exited $STATUS (wanted 3)"
grep '"status":"ok"' "$R/Fake_H200/fake_usercheck.jsonl" | grep -q 'K=2' && [ "$(st fake_usercheck ok)" -eq 1 ] && ok ||
  fail "fake_usercheck: not exactly K=2 passed"
grep -q "the space's check kernel" "$R/Fake_H200/fake_usercheck.jsonl" && ok || fail "the failure does not name the check kernel"

# mismatches: configuration B leaves the last B of 4096 elements unwritten. The output's own
# mismatches = 128 passes B = 64 and 128, each record saying how many differed, and fails
# B = 256; check.mismatches = 64 is every output's default; the output's 0 wins over the space's.
rec() { grep "\"config\":\"B=$2\"" "$1/Fake_H200/fake_mismatches.jsonl"; }
RM="$TMPROOT/results-mm-output"
FAKE_MM_OUTPUT=128 run_any "$BIN" run --jobs 2 --no-progress --results "$RM" "$d/fake_mismatches.lua"
[ "$STATUS" -eq 3 ] && ok || fail "mismatches = 128 exited $STATUS (wanted 3: B=256 is wrong)"
for b in 64 128; do
  rec "$RM" $b | grep -q '"status":"ok"' && ok || fail "B=$b within mismatches = 128 is not ok: $(rec "$RM" $b)"
  rec "$RM" $b | grep -q "output 'out1': $b of 4096 elements differ from the reference, within mismatches = 128" && ok ||
    fail "B=$b: the record does not say $b elements differed: $(rec "$RM" $b)"
done
rec "$RM" 256 | grep -q '"status":"wrong_result"' && ok || fail "B=256 past mismatches = 128 is not wrong_result"
rec "$RM" 256 | grep -q "output 'out1': 256 of 4096 elements differ from the reference (exact comparison)" && ok ||
  fail "B=256: the message does not say 256 elements differ: $(rec "$RM" 256)"
RM="$TMPROOT/results-mm-space"
FAKE_MM_SPACE=64 run_any "$BIN" run --jobs 2 --no-progress --results "$RM" "$d/fake_mismatches.lua"
[ "$STATUS" -eq 3 ] && ok || fail "check.mismatches = 64 exited $STATUS (wanted 3)"
rec "$RM" 64 | grep -q '"status":"ok"' && [ "$(grep -c '"status":"wrong_result"' "$RM/Fake_H200/fake_mismatches.jsonl")" -eq 2 ] &&
  ok || fail "check.mismatches = 64: not B=64 alone passed"
RM="$TMPROOT/results-mm-both"
FAKE_MM_SPACE=256 FAKE_MM_OUTPUT=0 run_any "$BIN" run --jobs 2 --no-progress --results "$RM" "$d/fake_mismatches.lua"
[ "$STATUS" -eq 4 ] && ok || fail "the output's mismatches = 0 under the space's 256 exited $STATUS (wanted 4: none right)"

# a launch sequence: two programs in one bundle, a buffer sized per configuration, the reference's
# own arguments; a second launch over the limit is invalid
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_seq.lua"
[ "$(st fake_seq ok)" -eq 3 ] && ok || fail "fake_seq: $(st fake_seq ok) ok (wanted 3)"
R5="$TMPROOT/results-seqbad"
FAKE_SEQ_BAD=1 expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R5" "$d/fake_seq.lua"
[ "$(grep -c '"status":"invalid"' "$R5/Fake_H200/fake_seq.jsonl")" -eq 3 ] && ok || fail "fake_seq: pass 2 over the limit not invalid"
grep -q 'launches\[2\]' "$R5/Fake_H200/fake_seq.jsonl" && ok || fail "the invalid record does not name launches[2]"

# static shared memory past 48 KB in the kernel's entry, reported after the reference's by ptxas:
# invalid, the kernel and its bytes named, at compile time (compile-only too), exit status 0
expect_status 0 -- "$BIN" run --compile-only --arch sm_90 --jobs 2 --no-progress "$d/fake_smem.lua"
expect_output "kernel 'smem_big' uses 65536 bytes of static shared memory" "the entry over 48 KB named"
expect_output "1 invalid (over a limit of sm_90)" "over 48 KB is invalid, not a compile error"

expect_status 0 -- "$BIN" space "$d/fake_tpl.lua"
expect_output "6 valid configurations of 6" "cutune space"
expect_status 0 -- "$BIN" space --list "$d/fake_const.lua"
expect_output "B=128" "cutune space --list"
finish
