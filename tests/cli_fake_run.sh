#!/usr/bin/env bash
# `cutune run` end to end without a GPU, through the fake libcuda.so.1 (tests/fake): the tuning
# loop over two problems, the store, a SIGKILL part-way and the resume (only what is missing is
# measured; nothing lost or measured twice), progress lines, the final tables; a GPU worker
# killed during a problem's setup is replaced and the run goes on (issue 8, item 12); a header
# the template includes is part of the store's template hash, so editing it re-measures
# everything (item 9). NVRTC 13 loads libcuda.so.1 itself (in the coordinator, for the
# reference, and in every compile worker): the fake answers it too (item 3).
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
need_hooks # the lost and timed-out compiles below (cutune-hooks)
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/fake_run.lua tests/spaces/fake_run.cu tests/spaces/fake_run_inc.cuh "$d/"
R="$TMPROOT/results"
STORE="$R/Fake_H200/fake_run.jsonl"
run() { run_any "$BIN" run --jobs 1 --no-progress --results "$R" "$d/fake_run.lua"; }
lines() { if [ -f "$STORE" ]; then grep -c . "$STORE" || true; else echo 0; fi; }

# 1. a run paced by the fake (each module load sleeps), killed with SIGKILL after 3 records
FAKE_CUDA_LOAD_DELAY_MS=150 "$BIN" run --jobs 1 --no-progress --results "$R" "$d/fake_run.lua" \
  > "$TMPROOT/killed.txt" 2>&1 &
pid=$!
for _ in $(seq 600); do [ "$(lines)" -ge 3 ] && break; sleep 0.05; done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
before=$(lines)
if [ "$before" -ge 3 ] && [ "$before" -lt 24 ]; then ok; else fail "killed run left $before records (wanted 3..23)"; cat "$TMPROOT/killed.txt" >&2; fi
expect_output_file() { if grep -qF -- "$1" "$2"; then ok; else fail "$2 lacks '$1'"; tail -20 "$2" >&2; fi; }
expect_output_file "problem n=65536: 12 configurations, strategy random (the whole space, in a seeded random order)" "$TMPROOT/killed.txt"
expect_output_file "n=65536: 1/12" "$TMPROOT/killed.txt" # a plain progress line

# 2. resume, with the first GPU worker killed during the setup of the first problem
touch "$TMPROOT/kill-once"
FAKE_CUDA_KILL_ONCE_FILE="$TMPROOT/kill-once" run
[ ! -e "$TMPROOT/kill-once" ] && ok || fail "the fake's setup kill did not fire"
expect_output "1 GPU worker died in the setup and was replaced" "resume"
expect_output "answered from the store" "resume"
# the killed run tuned both problems side by side (the overlap of problems): its records may
# lie in either, so each problem is whole again and the answers add up to the records kept
answered=0
for n in 65536 4096; do
  resumed=$(printf '%s\n' "$OUTPUT" | sed -n "s/^problem n=$n: \([0-9]*\) measured ([0-9]* failed[^)]*), \([0-9]*\) answered from the store.*/\1 \2/p")
  resumed=${resumed:-"0 0"}
  set -- $resumed
  if [ $(( $1 + $2 )) -eq 12 ]; then ok; else fail "resume: '$resumed' (measured, answered) for n=$n"; fi
  answered=$(( answered + $2 ))
done
if [ "$answered" -ge 3 ] && [ "$answered" -le "$before" ]; then ok; else fail "resume: $answered answered from the store, $before records were kept"; fi
expect_output "== fake_run, problem n=65536: 12 of 12 configurations measured on Fake H200 ==" "final table"
expect_output "== fake_run, problem n=4096: 12 of 12 configurations measured on Fake H200 ==" "final table"
expect_output "6 of 12 configurations passed" "final table"
expect_output "failures: 6 (6 wrong_result)" "final table"
expect_output "which parameters made the difference" "final table"
expect_output "COVER  0: failed  1:" "parameter effects"
# every (config, problem) once: nothing lost, nothing measured twice
n=$(lines)
[ "$n" -eq 24 ] && ok || fail "store has $n records (wanted 24)"
dups=$(sed 's/.*"config":"\([^"]*\)".*"problem":"\([^"]*\)".*/\1 \2/' "$STORE" | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] && ok || fail "$dups (config, problem) pairs recorded twice"
oks=$(grep -c '"status":"ok"' "$STORE" || true)
[ "$oks" -eq 12 ] && ok || fail "$oks ok records (wanted 12)"
# every measured record carries the worker's own time on it (measure_ms > 0), and the run says
# where the time went
timed=$(grep '"status":"ok"' "$STORE" | grep -c '"measure_ms":[0-9.]*[1-9]' || true)
[ "$timed" -eq 12 ] && ok || fail "$timed of 12 ok records have measure_ms > 0"
expect_output "time: the GPU worked" "where the time went"

# 3. the same command again: nothing to measure
run
expect_output "problem n=65536: 0 measured (0 failed), 12 answered from the store" "third run"
expect_output "problem n=4096: 0 measured (0 failed), 12 answered from the store" "third run"

# 4. edit the header the template includes: a new template hash, everything measured again
echo '// edited' >> "$d/fake_run_inc.cuh"
run
expect_output "problem n=65536: 12 measured (6 failed), 0 answered from the store" "after the header edit"
n=$(lines)
[ "$n" -eq 48 ] && ok || fail "store has $n records after the header edit (wanted 48)"

# 5. compile workers killed from outside (the hook kills the worker given -DB=128): recorded
# worker_lost, and the next run compiles and measures exactly those again (fresh cache and
# store, first problem only)
R="$TMPROOT/results-lost"
STORE="$R/Fake_H200/fake_run.jsonl"
export CUTUNE_CACHE="$TMPROOT/cache-lost"
CUTUNE_COMPILE_WORKER_CRASH=-DB=128 run_any "$HOOKS" run --jobs 1 --no-progress --problem 0 --results "$R" "$d/fake_run.lua"
lost=$(grep -c '"status":"worker_lost"' "$STORE" || true)
[ "$lost" -eq 4 ] && ok || fail "$lost worker_lost records (wanted the 4 with B=128)"
run_any "$BIN" run --jobs 1 --no-progress --problem 0 --results "$R" "$d/fake_run.lua"
expect_output "problem n=65536: 4 measured (2 failed), 8 answered from the store" "resume after lost compiles"

# 6. compile timeouts (the hook stops the worker given -DB=64; --compile-timeout 1): recorded
# compile_timeout; a run at the same limit compiles them once more (the machine may have been
# overloaded), the next one skips them (two timeouts), and a run with a larger limit than the
# compiles ran for compiles them again (cutune run --help, --compile-timeout)
R="$TMPROOT/results-timeout"
STORE="$R/Fake_H200/fake_run.jsonl"
export CUTUNE_CACHE="$TMPROOT/cache-timeout"
trun() { run_any "$HOOKS" run --jobs 1 --no-progress --problem 0 --results "$R" "$@" "$d/fake_run.lua"; }
CUTUNE_COMPILE_WORKER_STOP=-DB=64 trun --compile-timeout 1
n=$(grep -c '"status":"compile_timeout"' "$STORE" || true)
[ "$n" -eq 4 ] && ok || fail "$n compile_timeout records (wanted the 4 with B=64)"
CUTUNE_COMPILE_WORKER_STOP=-DB=64 trun --compile-timeout 1
expect_output "problem n=65536: 4 measured (4 failed), 8 answered from the store" "a first timeout is retried"
CUTUNE_COMPILE_WORKER_STOP=-DB=64 trun --compile-timeout 1
expect_output "problem n=65536: 0 measured (0 failed), 12 answered from the store" "a second timeout is not"
n=$(grep -c '"status":"compile_timeout"' "$STORE" || true)
[ "$n" -eq 8 ] && ok || fail "$n compile_timeout records after three runs (wanted 8)"
trun --compile-timeout 30
expect_output "problem n=65536: 4 measured (" "a larger --compile-timeout retries them"
expect_output ", 8 answered from the store" "a larger --compile-timeout retries only them"
n=$(grep -c '"status":"compile_timeout"' "$STORE" || true)
[ "$n" -eq 8 ] && ok || fail "$n compile_timeout records after the larger limit (wanted still 8)"

# 8. --time alone on a small space: a seeded random order, which covers the whole space where
# the time suffices (the enumeration's first corner is a poor sample where it does not)
R8="$TMPROOT/results-time"
run_any "$BIN" run --jobs 1 --no-progress --results "$R8" --time 60 --problem 0 "$d/fake_run.lua"
expect_output "strategy random" "--time alone takes the space in random order"
expect_output "problem n=65536: 12 measured (" "--time alone measures the whole space when the time suffices"
got=$(sed -n 's/.*"config":"\([^"]*\)".*/\1/p' "$R8/Fake_H200/fake_run.jsonl" | tr '\n' ' ')
enum=$("$BIN" space "$d/fake_run.lua" --list | grep '=' | grep -v '^problem \|^ \|: ' | tr '\n' ' ')
[ -n "$got" ] && [ "$got" != "$enum" ] && ok || fail "--time alone measured in enumeration order: '$got'"
run_any "$BIN" run --jobs 1 --no-progress --results "$TMPROOT/results-time2" --strategy exhaustive --time 60 --problem 0 "$d/fake_run.lua"
expect_output "strategy exhaustive" "--strategy exhaustive with --time stays exhaustive"
finish
