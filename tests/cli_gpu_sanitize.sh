#!/usr/bin/env bash
# On a GPU with compute-sanitizer: the planted faults of tests/spaces/planted_space.lua, which
# are caught (on the H200 both also fail the output check: the run exits 3, some failed) — MODE=1's missing __syncthreads() by racecheck, MODE=2's
# write past the end by memcheck — the correct MODE=0 is clean, the verdicts are in the sidecar,
# and explain exits 4 (a configuration was flagged).
. "$(dirname "$0")/lib_cli.sh"
gpu_or_skip
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -z "$CS" ]; then echo "skipped: no compute-sanitizer"; exit 77; fi
set -e
R="$TMPROOT/results"
expect_status 3 -- "$BIN" run --no-progress --results "$R" tests/spaces/planted_space.lua
expect_status 4 -- "$BIN" explain tests/spaces/planted_space.lua --results "$R" --no-profile --sanitize \
  --sanitizer "$CS" --top 0 --config MODE=0 --config MODE=1 --config MODE=2 --tool-timeout 200
echo "$OUTPUT" | tail -20
side=$(ls "$R"/*/planted.explain.jsonl 2>/dev/null | head -1)
[ -n "$side" ] && ok || fail "no sidecar under $R"
v() { grep "\"config\":\"MODE=$1\"" "$side" | grep "\"tool\":\"$2\"" | grep -c "\"verdict\":\"$3\"" || true; }
[ "$(v 1 racecheck flagged)" -ge 1 ] && ok || fail "the race (MODE=1) was not flagged by racecheck"
[ "$(v 2 memcheck flagged)" -ge 1 ] && ok || fail "the out-of-bounds write (MODE=2) was not flagged by memcheck"
for t in memcheck racecheck initcheck; do
  [ "$(v 0 $t clean)" -ge 1 ] && ok || fail "the correct MODE=0 is not clean under $t"
done
expect_output "hazard"
expect_output "Invalid __global__ write"
finish
