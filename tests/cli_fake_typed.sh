#!/usr/bin/env bash
# String parameters and buffers typed by the configuration (docs/SPACE.md, "Buffers typed by the
# configuration"), as Kernel Tuner's accuracy.py tunes TunablePrecision, end to end through the
# fake libcuda.so.1 (tests/fake): float_type in {float, double, half} is passed as
# -Dfloat_type=half, the kernel's three buffers follow it (each configuration's inputs the same
# seeded draws in its type: the fake adds in the type its mangled name says), and the output is
# compared in double with the reference's (the kernel in double) within bounds by type. Records
# keep the string values; the header carries them as tokens and C strings.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/typed/* "$d/"
R="$TMPROOT/results"
st() { grep -c "\"status\":\"$2\"" "$R/Fake_H200/$1.jsonl" || true; }

expect_status 0 -- "$BIN" space "$d/fake_typed.lua"
expect_output "6 valid configurations of 6" "count"
expect_output "float_type                 3 values: float double half" "string values listed"
expect_status 0 -- "$BIN" run --compile-only --jobs 2 --no-progress "$d/fake_typed.lua"
expect_output " 0 failed" "every type compiles"

expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_typed.lua"
[ "$(st fake_typed ok)" -eq 6 ] && ok || fail "fake_typed: $(st fake_typed ok) ok (wanted 6)"
grep -q '"params":{"BLOCK":"64","float_type":"half"}' "$R/Fake_H200/fake_typed.jsonl" && ok || fail "records lack float_type=half"

# half's bound as float's: its sums (rounded to half) are off by up to ~1e-3; the other types pass.
# The bounds are in the check hash: every configuration is measured again
TIGHT=1 expect_status 3 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_typed.lua"
expect_output "6 measured" "new bounds measure again"
[ "$(st fake_typed wrong_result)" -eq 2 ] && ok || fail "tight: $(st fake_typed wrong_result) wrong_result (wanted 2)"
grep '"status":"wrong_result"' "$R/Fake_H200/fake_typed.jsonl" | grep -q "output 'output (half)'.*atol 1e-06, rtol 0" &&
  ok || fail "the wrong_result message names the output's type and bounds"
[ "$(grep '"status":"wrong_result"' "$R/Fake_H200/fake_typed.jsonl" | grep -c '"float_type":"half"')" -eq 2 ] &&
  ok || fail "only half fails the tight bound"

# the header: the string parameter as a token (macros, cutune-config) and a C string (entries)
R2="$TMPROOT/results2"
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R2" "$d/fake_typed.lua"
expect_status 0 -- "$BIN" header "$d/fake_typed.lua" "$R2" -o "$TMPROOT/typed.h"
for want in "cutune-config 0 BLOCK=" "const char *float_type;" "X(float_type, "; do
  grep -qF "$want" "$TMPROOT/typed.h" && ok || fail "the header lacks '$want'"
done
grep -Eq '^#define CUTUNE_FAKE_TYPED_float_type (float|double|half)$' "$TMPROOT/typed.h" && ok || fail "no token macro"
if command -v cc >/dev/null 2>&1; then
  printf '#include "typed.h"\nint main(void) { int n; return cutune_fake_typed_entries_(&n)[0].float_type[0] ? 0 : 1; }\n' \
    >"$TMPROOT/use.c"
  expect_status 0 -- cc -std=c11 -Wall -Werror -o "$TMPROOT/use" "$TMPROOT/use.c"
  expect_status 0 -- "$TMPROOT/use"
fi
finish
