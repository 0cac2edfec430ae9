#!/usr/bin/env bash
# The overlap of problems (docs/ARCHITECTURE.md "The tuning loop") through the fake libcuda.so.1:
# a run of two problems measures them side by side (every GPU worker holds both set up; the
# store's records of the two interleave) and records the same configurations with the same
# statuses and times as --no-overlap, which tunes them one after the other; a run killed part-way
# resumes with nothing lost or measured twice; a kernel that faults (the worker's context dies
# and it is replaced) costs its own records only: the replacement is given both problems again and
# the other configurations of both are measured as before; a time limit (per problem) and a
# shape set keep the order of one problem after the other.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/fake_run.lua tests/spaces/fake_run.cu tests/spaces/fake_run_inc.cuh "$d/"
# every configuration a cubin of its own (the fake's module loads pace the killed run below; the
# module cache shares equal cubins)
printf '#ifdef B\n__device__ int fake_run_marker[3] = {B, COVER, U};\n#endif\n' >> "$d/fake_run.cu"
S="$d/fake_run.lua"
expect_output_file() { if grep -qF -- "$1" "$2"; then ok; else fail "$2 lacks '$1'"; tail -20 "$2" >&2; fi; }
# config, problem, status and samples of every record, sorted: what a run found (the fake's times
# are the host's clock: they differ in the last digits from run to run)
found() { python3 -c '
import json, sys
for ln in open(sys.argv[1]):
    r = json.loads(ln)
    print(r["config"], r["problem"], r["status"], r.get("time_ms", {}).get("samples"))' "$1" | sort; }
lines() { if [ -f "$1" ]; then grep -c . "$1" || true; else echo 0; fi; }

# 1. side by side against one after the other: the same records
run_any "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/r-on" "$S"
[ "$STATUS" -eq 3 ] && ok || fail "overlap run exit $STATUS (wanted 3: wrong results)"
expect_output "2 problems side by side" "overlap"
expect_output "overlap: 2 problems measured side by side in" "overlap line"
expect_output "problem n=4096: 12 measured (6 failed), 0 answered from the store" "overlap"
expect_output "== fake_run, problem n=4096: 12 of 12 configurations measured on Fake H200 ==" "overlap tables"
ON="$TMPROOT/r-on/Fake_H200/fake_run.jsonl"
run_any "$BIN" run --jobs 2 --no-progress --no-overlap --results "$TMPROOT/r-off" "$S"
OFF="$TMPROOT/r-off/Fake_H200/fake_run.jsonl"
if printf '%s\n' "$OUTPUT" | grep -q "side by side"; then fail "--no-overlap still overlaps"; else ok; fi
[ "$(lines "$ON")" -eq 24 ] && [ "$(lines "$OFF")" -eq 24 ] && ok || fail "records: $(lines "$ON") and $(lines "$OFF") (wanted 24 each)"
if diff <(found "$ON") <(found "$OFF") > "$TMPROOT/diff.txt"; then ok; else fail "overlap and --no-overlap differ"; cat "$TMPROOT/diff.txt" >&2; fi
# side by side: a record of the second problem comes before the last of the first (and not so without overlap)
order() { sed 's/.*"problem":"\([^"]*\)".*/\1/' "$1" | uniq | wc -l; }
[ "$(order "$ON")" -gt 2 ] && ok || fail "overlap: the problems' records do not interleave ($(order "$ON") runs)"
[ "$(order "$OFF")" -eq 2 ] && ok || fail "--no-overlap: the problems' records interleave ($(order "$OFF") runs)"

# 2. killed part-way (the fake paces module loads), then resumed: nothing lost or measured twice
R="$TMPROOT/r-kill"
STORE="$R/Fake_H200/fake_run.jsonl"
FAKE_CUDA_LOAD_DELAY_MS=150 "$BIN" run --jobs 1 --batch 1 --no-progress --results "$R" "$S" > "$TMPROOT/killed.txt" 2>&1 &
pid=$!
for _ in $(seq 600); do [ "$(lines "$STORE")" -ge 5 ] && break; sleep 0.05; done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
before=$(lines "$STORE")
if [ "$before" -ge 5 ] && [ "$before" -lt 24 ]; then ok; else fail "killed run left $before records (wanted 5..23)"; fi
run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$S"
expect_output "2 problems side by side" "resume"
[ "$(lines "$STORE")" -eq 24 ] && ok || fail "resumed store has $(lines "$STORE") records (wanted 24)"
dups=$(sed 's/.*"config":"\([^"]*\)".*"problem":"\([^"]*\)".*/\1 \2/' "$STORE" | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] && ok || fail "$dups (config, problem) pairs recorded twice"
if diff <(found "$STORE") <(found "$OFF") > "$TMPROOT/diff2.txt"; then ok; else fail "resumed overlap run differs from --no-overlap"; cat "$TMPROOT/diff2.txt" >&2; fi

# 3. a fault: every launch of 256 threads a block kills the worker's context; the replacement
#    holds both problems again and the rest of both is measured
R="$TMPROOT/r-fault"
STORE="$R/Fake_H200/fake_run.jsonl"
FAKE_CUDA_FAULT_BLOCK=256 run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$S"
[ "$(lines "$STORE")" -eq 24 ] && ok || fail "fault run: $(lines "$STORE") records (wanted 24)"
faults=$(grep '"status":"runtime_fault"' "$STORE" | grep -c '"B":"256"' || true)
others=$(grep -c '"status":"runtime_fault"' "$STORE" || true)
# B=256, with COVER 0 or 1 and U 1 or 2: 4 configurations x 2 problems
[ "$faults" -eq 8 ] && [ "$others" -eq 8 ] && ok || fail "faults: $faults of B=256, $others in all (wanted 8 and 8)"
for p in 65536 4096; do
  n=$(grep '"status":"ok"' "$STORE" | grep -c "\"problem\":\"n=$p\"" || true)
  [ "$n" -eq 4 ] && ok || fail "after the faults, problem n=$p has $n ok records (wanted 4: B=64 and 128, COVER=1)"
done

# 4. a time limit is per problem: one after the other
run_any "$BIN" run --jobs 2 --no-progress --time 60 --results "$TMPROOT/r-time" "$S"
expect_output "2 problems, one after the other: the time limit of 60 s is per problem" "--time"
finish
