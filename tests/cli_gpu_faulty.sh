#!/usr/bin/env bash
# On a GPU: a space with correct, wrong, faulting, hanging and unlaunchable variants completes,
# each recorded under its class, nothing lost; a second run measures nothing again.
. "$(dirname "$0")/lib_cli.sh"
gpu_or_skip
set -e
R="$TMPROOT/results"
expect_status 3 -- "$BIN" run --no-progress --results "$R" tests/spaces/faulty_space.lua
echo "$OUTPUT" | tail -30
store=$(ls "$R"/*/faulty*.jsonl 2>/dev/null | head -1)
[ -n "$store" ] && ok || fail "no store written under $R"
for st in ok wrong_result runtime_fault timeout; do
  if grep -q "\"status\":\"$st\"" "$store"; then ok; else fail "no record with status $st in $store"; fi
done
# MODE=4 asks for 2048 threads: refused before launch (invalid) or by the driver (launch_error)
if grep -q '"config":"MODE=4[^"]*".*"status":"\(invalid\|launch_error\)"' "$store"; then ok; else fail "MODE=4 not recorded as invalid/launch_error"; fi
# every configuration of every problem has exactly one record
want=$(printf '%s' "$OUTPUT" | sed -n 's/.*: \([0-9]*\) valid configurations of.*/\1/p' | head -1)
lines=$(wc -l < "$store")
[ -n "$want" ] && [ "$lines" -eq "$want" ] && ok || fail "store has $lines records, space has ${want:-?} configurations"
expect_status 3 -- "$BIN" run --no-progress --results "$R" tests/spaces/faulty_space.lua
lines2=$(wc -l < "$store")
[ "$lines" -eq "$lines2" ] && ok || fail "second run appended $((lines2 - lines)) records (wanted 0)"
expect_output "answered from the store"
finish
