#!/usr/bin/env bash
# A mistake in a space's own per-configuration code (docs/SPACE.md, *Geometry*) through the fake
# libcuda.so.1 (tests/fake): a grid function that raises is space_error, a failure (exit status
# 3, listed with the failures, one line at the end quoting the first message), never answered
# from the store (a later run evaluates those configurations again, and once the space is fixed
# measures them); a block over 1024 threads is invalid, data (answered, exit status 0 when it is
# the only trouble); compile-only counts them alike; a run whose first 16 records all failed in
# the space's code stops there.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/fake_space_error.lua tests/spaces/fake_space_error_all.lua tests/spaces/fake_run.cu \
  tests/spaces/fake_run_inc.cuh "$d/"
R="$TMPROOT/results"
STORE="$R/Fake_H200/fake_space_error.jsonl"
run() { run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$d/$1.lua"; }
st() { grep -c "\"status\":\"$1\"" "$STORE" || true; }

# 0. `cutune space` evaluates the launch functions without compiling: the raising grid is
# printed and the exit status is 1; the block over the limit is counted apart
expect_status 1 -- "$BIN" space "$d/fake_space_error.lua"
expect_output "fake_space_error.lua:15: grid failed for B=128," "space: the grid's failure"
expect_output "  space error: " "space: the failure on a line of its own"
expect_output "failed in the space's own code (space_error in a run); " "space: the count"
expect_output "over a limit of CUDA (invalid in a run: data, not a failure)" "space: the limit counted apart"
expect_status 0 -- "$BIN" space tests/spaces/fake_run.lua
expect_output "launch functions: evaluated on " "space: a space without mistakes"
expect_output ": all evaluated" "space: a space without mistakes"

# 1. B = 128 raises in grid (space_error), B = 2048 is over a block's 1024 threads (invalid)
run fake_space_error
[ "$STATUS" -eq 3 ] && ok || fail "exit status $STATUS with configurations failing in the space's code (wanted 3)"
expect_output "problem n=4096: 8 measured (2 failed, 2 invalid), 0 answered from the store" "first run"
expect_output "problem n=4096: 4 of 8 configurations passed" "first run"
expect_output "failures: 4 (2 invalid, 2 space_error)" "first run: the failures line"
expect_output "2 configurations failed in the space's own functions (space_error: a failure, evaluated again by the next run); first: " "first run: the end line"
expect_output "fake_space_error.lua:15: grid failed for B=128,U=" "first run: the end line"
expect_output "fake_space_error.lua:16: attempt to index a nil value (field 'x')" "first run: Lua's own message"
[ "$(st space_error)" -eq 2 ] && ok || fail "$(st space_error) space_error records (wanted 2)"
[ "$(st invalid)" -eq 2 ] && ok || fail "$(st invalid) invalid records (wanted 2)"
grep '"status":"space_error"' "$STORE" | grep -q '"message":"[^"]*fake_space_error.lua:15: grid failed for B=128,U=[12] on problem n=4096' &&
  ok || fail "a space_error record does not name the space's file:line and the configuration"

# 2. the same space again: the space errors are evaluated again (and fail again), the rest answered
run fake_space_error
[ "$STATUS" -eq 3 ] && ok || fail "second run: exit status $STATUS (wanted 3)"
expect_output "problem n=4096: 2 measured (2 failed), 6 answered from the store" "second run"
expect_output "failures: 4 (2 invalid, 2 space_error)" "second run"

# 3. the space fixed: those two are measured and pass; the invalid ones stay answered, exit 0
export FAKE_SPACE_ERROR_FIXED=1
run fake_space_error
[ "$STATUS" -eq 0 ] && ok || fail "fixed space: exit status $STATUS (wanted 0: invalid is no failure)"
expect_output "problem n=4096: 2 measured (0 failed), 6 answered from the store" "fixed space"
expect_output "problem n=4096: 6 of 8 configurations passed" "fixed space"
expect_output "failures: 2 (2 invalid)" "fixed space"
if printf '%s' "$OUTPUT" | grep -q "space's own functions"; then fail "fixed space: the space-error line"; else ok; fi
run fake_space_error
expect_output "problem n=4096: 0 measured (0 failed), 8 answered from the store" "fixed space, again"
unset FAKE_SPACE_ERROR_FIXED

# 4. compile-only: the same statuses, the same exit statuses, the failures listed whole
run_any "$BIN" run --compile-only --jobs 2 --no-progress "$d/fake_space_error.lua"
[ "$STATUS" -eq 3 ] && ok || fail "compile-only: exit status $STATUS (wanted 3)"
expect_output "8 configurations for sm_90" "compile-only"
expect_output "2 failed, 2 invalid (over a limit of sm_90)" "compile-only"
expect_output "errors in the space's own functions (geometry, arguments), whole (2):" "compile-only: the list"
expect_output "fake_space_error.lua:15: grid failed for B=128,U=1 on problem n=4096" "compile-only: the list"
expect_output "2 configurations failed in the space's own functions" "compile-only: the end line"
FAKE_SPACE_ERROR_FIXED=1 expect_status 0 -- "$BIN" run --compile-only --jobs 2 --no-progress "$d/fake_space_error.lua"
expect_output "0 failed, 2 invalid (over a limit of sm_90)" "compile-only, fixed"

# 5. every configuration raises: the run stops once its first 16 records all failed so
run fake_space_error_all
[ "$STATUS" -eq 4 ] && ok || fail "all failing: exit status $STATUS (wanted 4: none succeeded)"
expect_output "stopped early: the first 16 configurations all failed so" "all failing"
expect_output "fake_space_error_all.lua:13: ct.cdiv: argument 1 must be an integer (got nil)" "all failing"
n=$(grep -c . "$R/Fake_H200/fake_space_error_all.jsonl" || true)
[ "$n" -ge 16 ] && [ "$n" -lt 40 ] && ok || fail "all failing: $n records (wanted 16 to 39: stopped early)"
run_any "$BIN" run --compile-only --jobs 2 --no-progress "$d/fake_space_error_all.lua"
[ "$STATUS" -eq 4 ] && ok || fail "all failing, compile-only: exit status $STATUS (wanted 4)"
expect_output "(stopped early: " "all failing, compile-only"
expect_output "stopped early: the first 16 configurations all failed so" "all failing, compile-only"
finish
