#!/usr/bin/env bash
# The launch hash (docs/RECORDS.md: provenance.launch_hash) through the fake libcuda.so.1
# (tests/fake): a record answers a run only where the configuration is launched as it was when
# measured. Editing a copy of a space's grid, its dynamic shared memory, a scalar argument's value,
# its argument list, or the geometry of a launch of a sequence measures every configuration again
# ("0 answered"); an unchanged rerun is answered; the old records stay and answer again once the
# space launches as it did; records without the field (older stores) answer whatever the launch.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/fake_launch.lua tests/spaces/fake_run.cu tests/spaces/fake_run_inc.cuh \
  tests/spaces/realk/fake_seq.lua tests/spaces/realk/fake_cxx.cu "$d/"
cp "$d/fake_launch.lua" "$TMPROOT/original.lua"
R="$TMPROOT/results"
STORE="$R/Fake_H200/fake_launch.jsonl"
run() { run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$d/${1:-fake_launch}.lua"; }
edit() { sed -i "$1" "$d/fake_launch.lua"; } # edit the space as a user would
measured() { expect_output "problem n=4096: $1" "$2"; }

# 1. measured, each record with its launch hash; the same space again: answered
run
measured "4 measured (0 failed), 0 answered from the store" "first run"
n=$(grep -c '"launch_hash":"[0-9a-f]\{32\}"' "$STORE" || true)
[ "$n" -eq 4 ] && ok || fail "$n of 4 records carry a launch_hash of 32 hex digits"
run
measured "0 measured (0 failed), 4 answered from the store" "unchanged rerun"

# 2. the grid launches twice the blocks: measured again, then answered
edit 's/grid = function(p, n) return ct.cdiv(n.n, p.B) end/grid = function(p, n) return 2 * ct.cdiv(n.n, p.B) end/'
run
measured "4 measured (0 failed), 0 answered from the store" "twice the blocks"
run
measured "0 measured (0 failed), 4 answered from the store" "twice the blocks, again"

# 3. back to the original grid: the first run's records answer again (passed over, not removed)
cp "$TMPROOT/original.lua" "$d/fake_launch.lua"
run
measured "0 measured (0 failed), 4 answered from the store" "the original grid again"
[ "$(grep -c . "$STORE")" -eq 8 ] && ok || fail "store has $(grep -c . "$STORE") records (wanted 8: the old ones kept)"

# 4. dynamic shared memory
edit 's/^  grid = /  shared = function(p, n) return 1024 end,\n  grid = /'
run
measured "4 measured (0 failed), 0 answered from the store" "dynamic shared memory"

# 5. a scalar argument's value (the reference gets it too: both copy n - 1 elements, and pass)
cp "$TMPROOT/original.lua" "$d/fake_launch.lua"
edit 's/ct.scalar("int", "n") }/ct.scalar("int", "n - 1") }/'
run
measured "4 measured (0 failed), 0 answered from the store" "a scalar's value"

# 6. a scalar argument added
cp "$TMPROOT/original.lua" "$d/fake_launch.lua"
edit 's/ct.scalar("int", "n") }/ct.scalar("int", "n"), ct.scalar("float", 2.5) }/'
run
measured "4 measured (0 failed), 0 answered from the store" "a scalar added"
run
measured "0 measured (0 failed), 4 answered from the store" "a scalar added, again"

# 7. records without the field (written before it) answer whatever the launch
sed -i 's/,"launch_hash":"[0-9a-f]*"//' "$STORE"
grep -q launch_hash "$STORE" && fail "the launch hashes were not removed" || ok
edit 's/grid = function(p, n) return ct.cdiv(n.n, p.B) end/grid = function(p, n) return 3 * ct.cdiv(n.n, p.B) end/'
run
measured "0 measured (0 failed), 4 answered from the store" "records without a launch hash"

# 8. a launch sequence: pass 2's block changed (its kernel, arguments and geometry are hashed)
run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_seq.lua"
expect_output "problem n=65536: 3 measured (0 failed), 0 answered from the store" "a sequence"
sed -i 's/block = bad and {2048} or {256}, grid = {1}/block = bad and {2048} or {128}, grid = {1}/' "$d/fake_seq.lua"
grep -q 'or {128}, grid = {1}' "$d/fake_seq.lua" && ok || fail "the sequence's pass 2 was not edited"
run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_seq.lua"
expect_output "problem n=65536: 3 measured (0 failed), 0 answered from the store" "a sequence's pass 2 changed"
run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_seq.lua"
expect_output "problem n=65536: 0 measured (0 failed), 3 answered from the store" "a sequence, again"
finish
