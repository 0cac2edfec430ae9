#!/usr/bin/env bash
# A space's init launches (docs/SPACE.md, "Init launches") end to end through the fake libcuda.so.1
# (tests/fake): init_state sets up a state once per problem, before the reference, and draw_state
# (tuned) reads and advances it, so the state is an inout restored to what the init left before
# every run. The fake fails draw_state on any state init_state did not make: the runs pass only
# where the init ran before the reference and each configuration's check starts from its output.
# Also: without the init the reference fails on the seeded fill; an init kernel the program lacks
# fails the run (and --compile-only) before any configuration; the init is in the check hash.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/init/* "$d/"
R="$TMPROOT/results"
st() { grep -c "\"status\":\"$2\"" "$R/Fake_H200/$1.jsonl" || true; }

expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_init.lua"
[ "$(st fake_init ok)" -eq 3 ] && ok || fail "fake_init: $(st fake_init ok) ok (wanted 3)"
expect_status 0 -- "$BIN" run --compile-only --jobs 2 --no-progress "$d/fake_init.lua"
expect_output " 0 failed" "the init's program compiles with the configurations"

# without the init, the state is the seeded fill: the reference's launch fails at the setup
FAKE_INIT=none expect_status 1 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/r-none" "$d/fake_init.lua"
expect_output "reference kernel 'draw_state'" "no init: the reference fails on the seeded state"

# an init kernel the program lacks: the run stops before any configuration, as for the reference
for mode in "" "--compile-only"; do
  FAKE_INIT=nosuch expect_status 1 -- "$BIN" run $mode --jobs 2 --no-progress --results "$TMPROOT/r-nosuch" "$d/fake_init.lua"
  expect_output "the init kernel 'nosuch' does not compile" "init kernel missing ${mode:-(run)}"
done

# the init decides the data, so it is in the check hash: a rerun is answered from the store, the
# same init launched otherwise measures again
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_init.lua"
expect_output "0 measured" "a rerun answers from the store"
FAKE_INIT=wide expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_init.lua"
expect_output "3 measured" "another init measures again"
[ "$(st fake_init ok)" -eq 6 ] && ok || fail "fake_init: $(st fake_init ok) ok records (wanted 6)"

# the init and the reference with 64 KB of dynamic shared memory: each is given the opt-in over
# 48 KB before its launch (the fake refuses the launch without it, as a GPU does)
FAKE_INIT=bigsmem expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/r-smem" "$d/fake_init.lua"
[ "$(grep -c '"status":"ok"' "$TMPROOT/r-smem/Fake_H200/fake_init.jsonl")" -eq 3 ] && ok ||
  fail "init and reference over 48 KB of dynamic shared memory: not 3 ok records"
finish
