#!/usr/bin/env bash
# cli_shapes_run: `cutune run` over a shape set through the fake libcuda.so.1 (tests/fake times
# copy_shaped by its block size against n, so every shape has its own winner;
# tests/spaces/fake_shapes.lua, six shapes from one ct.product): the nearest-first order, each
# later search seeded with the best kernels of the nearest shapes tuned before (transfer), the
# stall rule, the cross-measurement (the best three kernels of every shape recorded on every
# shape: ordinary records, nothing measured twice), the per-shape cost table, --cross-only
# answering everything from the store, --problem selections (ranges, lists, keys, errors), and
# a run of fewer than five problems keeping the old behaviour (listed order, cold, tables).
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/fake_shapes.lua tests/spaces/fake_shapes.cu "$d/"
R="$TMPROOT/results"
STORE="$R/Fake_H200/fake_shapes.jsonl"
run() { run_any "$BIN" run --jobs 1 --no-progress --results "$R" "$@" "$d/fake_shapes.lua"; }

# 1. the set: 6 shapes, budget 8 each, a seeded search ends after 4 evaluations without a gain
run --budget 8 --patience 4
[ "$STATUS" -eq 0 ] && ok || { fail "the shape run exited $STATUS"; echo "$OUTPUT" | tail -20 >&2; }
expect_output "6 problems (shapes), in nearest-first order; each search seeded with the best kernels of the nearest shapes tuned before it (transfer); then the cross-measurement"
expect_output "problem n=8192: 48 configurations, strategy hybrid"
# the second shape tuned is n=16384 (nearest to n=8192), seeded with n=8192's best three
expect_output "problem n=16384: 48 configurations, strategy hybrid; transfer: 3 seeds from n=8192, measured first; the search ends after 4 evaluations without a 0.5 % gain"
expect_output "== fake_shapes: 6 shapes, what each cost"
order=$(printf '%s\n' "$OUTPUT" | sed -n 's/^ *\([1-6]\)  \(n=[0-9]*\) .*/\2/p' | tr '\n' ' ')
[ "$order" = "n=8192 n=16384 n=65536 n=131072 n=262144 n=1048576 " ] && ok || fail "tuning order '$order'"
first=$(printf '%s\n' "$OUTPUT" | grep -E '^ +1  n=8192 ')
case "$first" in *"the search (cold)"*) ok ;; *) fail "the first shape is not cold: $first" ;; esac
# every later shape got seeds (the seeds column, third field)
seeded=$(printf '%s\n' "$OUTPUT" | awk '$1 ~ /^[2-6]$/ && $2 ~ /^n=/ && $3 > 0' | wc -l)
[ "$seeded" -eq 5 ] && ok || fail "$seeded of the 5 later shapes were seeded"
expect_output "cross  "
expect_output "every shape's best few kernels on every shape, for cutune header"
# the store: every (config, problem) once; each shape's three best kernels measured on every shape.
# The times stay as written (awk's print would round them to 6 digits): kernels of one block size
# differ in the 8th digit (U and X change nothing), and the engine ranks them by the whole value
awk -F'"' '{ for (i = 1; i < NF; i++) { if ($i == "config") c = $(i+2); if ($i == "problem") p = $(i+2) } print c, p }' "$STORE" \
  | sort | uniq -d > "$TMPROOT/dups"
[ ! -s "$TMPROOT/dups" ] && ok || fail "recorded twice: $(head -3 "$TMPROOT/dups")"
awk -F'"' '/"status":"ok"/ {
    for (i = 1; i < NF; i++) { if ($i == "config") c = $(i+2); if ($i == "problem") p = $(i+2) }
    match($0, /"t_median":[0-9.e+-]+/); t = substr($0, RSTART + 11, RLENGTH - 11)
    print p, t, c
  }' "$STORE" | sort -k1,1 -k2,2g > "$TMPROOT/ok"
problems=$(cut -d' ' -f1 "$TMPROOT/ok" | sort -u)
[ "$(printf '%s\n' "$problems" | wc -l)" -eq 6 ] && ok || fail "ok records on $(printf '%s\n' "$problems" | wc -l) problems"
missing=0
for p in $problems; do
  for c in $(awk -v p="$p" '$1 == p { print $3 }' "$TMPROOT/ok" | head -3); do
    for q in $problems; do
      grep -q "\"config\":\"$c\",.*\"problem\":\"$q\"" "$STORE" || { missing=$((missing + 1)); echo "  $c (best at $p) not on $q" >&2; }
    done
  done
done
[ "$missing" -eq 0 ] && ok || fail "$missing (kernel, shape) pairs of the cross-measurement missing"
stalled=$(printf '%s\n' "$OUTPUT" | grep -c "the seeded search stalled: --patience" || true)
[ "$stalled" -ge 1 ] && ok || fail "no seeded search ended by --patience 4"

# 2. --cross-only over the same store: every candidate is answered from it
run --budget 8 --cross-only
[ "$STATUS" -eq 0 ] && ok || fail "--cross-only exited $STATUS"
expect_output "cross-measurement: the best 3 kernels of each of the 6 shapes"
remeasured=$(printf '%s\n' "$OUTPUT" | grep -E "^problem n=[0-9]+: [1-9][0-9]* measured" || true)
[ -z "$remeasured" ] && ok || fail "--cross-only measured again: $remeasured"
expect_output "== fake_shapes: the cross-measurement, what it cost =="
expect_output "cross  "

# 3. fewer than five problems: as before (listed order, cold, the tables), through --problem
R="$TMPROOT/results-few"
run --budget 4 --problem 0,2 --problem "n=1048576"
[ "$STATUS" -eq 0 ] && ok || fail "--problem 0,2 exited $STATUS"
expect_output "== fake_shapes, problem n=8192: "
expect_output "== fake_shapes, problem n=65536: "
expect_output "== fake_shapes, problem n=1048576: "
if printf '%s' "$OUTPUT" | grep -q "n=16384\|transfer:\|cross-measurement"; then fail "a run of three problems is a shape set"; else ok; fi
lines=$(grep -c . "$R/Fake_H200/fake_shapes.jsonl")
[ "$lines" -eq 12 ] && ok || fail "$lines records for 3 problems x budget 4"
# ... unless asked: --transfer seeds them from the store's shapes
run --budget 4 --problem 1-1 --transfer
expect_output "problem n=16384: 48 configurations, strategy hybrid; transfer: "
run --budget 2 --problem 4- --no-transfer --no-cross
expect_output "== fake_shapes, problem n=262144: "
expect_output "== fake_shapes, problem n=1048576: "

# 4. selections that select nothing, or are malformed
expect_status 2 -- "$BIN" run --results "$R" --problem 9 "$d/fake_shapes.lua"
expect_output "--problem '9' matches no problem of $d/fake_shapes.lua (it has 6: give an index from 0 to 5"
expect_status 2 -- "$BIN" run --results "$R" --problem 3-1 "$d/fake_shapes.lua"
expect_output "expected an index (0), a range (0-9, or 5- to the last), a list of them (0,3,5-9)"
expect_status 2 -- "$BIN" run --results "$R" --problem "n=5" "$d/fake_shapes.lua"
expect_output "--problem 'n=5' matches no problem"
expect_status 2 -- "$BIN" run --results "$R" --cross-top 0 "$d/fake_shapes.lua"
expect_output "--cross-top needs a number of kernels from 1 to 8"
finish
