#!/usr/bin/env bash
# cli_shapes_replay: transfer across shapes on recorded measurements, asserted on counts (no
# time): `cutune run --replay STORE SPACE.lua --shapes` on the made-up SGEMM-like model of
# tests/fixtures/store/shapes_model.jsonl.gz (16 shapes, every one of 384 configurations on each;
# tests/fixtures/make_fixtures.sh). With transfer (the best kernels of the nearest shapes
# replayed before, measured first; the search ends once it stalls) the evaluations needed to
# come within 2 % of each shape's optimum fall below the cold searches', so do the evaluations
# spent, and the later shapes cost a fraction of the first one. Over several seeds.
. "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
ST=tests/fixtures/store/shapes_model.jsonl.gz
SP=tests/spaces/shapes_model.lua
sum_within_cold=0 sum_within_warm=0 sum_spent_cold=0 sum_spent_warm=0
for seed in 1 2 3; do
  expect_status 0 -- "$BIN" run --replay "$ST" "$SP" --shapes --budget 200 --seed "$seed"
  [ "$seed" = 1 ] && expect_output "shapes: 16 of $SP on $ST (384 configurations each), nearest-first order; strategy hybrid, --budget 200 per shape"
  c=$(printf '%s\n' "$OUTPUT" | sed -n 's/^  cold: *\([0-9]*\) in all, .*, \([0-9]*\) of 16 shapes within$/\1 \2/p')
  w=$(printf '%s\n' "$OUTPUT" | sed -n 's/^  transfer: *\([0-9]*\) in all, .*, \([0-9]*\) of 16 shapes within$/\1 \2/p')
  sp=$(printf '%s\n' "$OUTPUT" | sed -n 's/^evaluations spent: cold \([0-9]*\), transfer \([0-9]*\) (the first shape \([0-9]*\), the last 8 shapes \([0-9.]*\) each on average)$/\1 \2 \3 \4/p')
  set -- $c $w $sp
  if [ $# -ne 8 ]; then fail "seed $seed: the totals lines did not parse ('$c' '$w' '$sp')"; printf '%s\n' "$OUTPUT" | tail -6 >&2; continue; fi
  # nearly every shape gets within 2 % with transfer too (the stall rule may end a few early)
  [ "$4" -ge 15 ] && ok || fail "seed $seed: only $4 of 16 shapes within 2 % with transfer"
  [ "$2" -eq 16 ] && ok || fail "seed $seed: only $2 of 16 shapes within 2 % cold (budget 200)"
  # the later shapes cost a third of the first at most (the first is cold in both runs)
  awk -v f="$7" -v t="$8" 'BEGIN { exit !(t * 3 <= f) }' && ok || fail "seed $seed: the last shapes cost $8 each, the first $7"
  sum_within_cold=$((sum_within_cold + $1)) sum_within_warm=$((sum_within_warm + $3))
  sum_spent_cold=$((sum_spent_cold + $5)) sum_spent_warm=$((sum_spent_warm + $6))
done
echo "to within 2 %: cold $sum_within_cold, transfer $sum_within_warm; spent: cold $sum_spent_cold, transfer $sum_spent_warm"
# over the seeds: transfer needs at most 60 % of the cold evaluations to come within 2 %, and
# spends at most 40 % of what the cold searches spend
[ $((sum_within_warm * 10)) -le $((sum_within_cold * 6)) ] && ok || fail "to within 2 %: transfer $sum_within_warm, cold $sum_within_cold"
[ $((sum_spent_warm * 10)) -le $((sum_spent_cold * 4)) ] && ok || fail "spent: transfer $sum_spent_warm, cold $sum_spent_cold"
# a seeded shape starts from its neighbours: the 3rd shape tuned (2048^3) is seeded from the two before
expect_status 0 -- "$BIN" run --replay "$ST" "$SP" --shapes --budget 50 --no-cold --problem 0-2
expect_output "  3  K=1024,M=1024,N=1024"
row=$(printf '%s\n' "$OUTPUT" | grep -E '^  2  K=2048,M=2048,N=2048')
case "$row" in *"K=4096,M=4096,N=4096"*) ok ;; *) fail "the second shape is not seeded from the first: $row" ;; esac
# --listed keeps the space's order (problem 0, then 9); errors
expect_status 0 -- "$BIN" run --replay "$ST" "$SP" --shapes --budget 20 --no-cold --listed --problem 9,0
expect_output "  1  K=4096,M=4096,N=4096"
expect_output "  2  K=8192,M=512,N=512"
expect_status 2 -- "$BIN" run --replay "$ST" --shapes --budget 20
expect_output "--shapes needs the space file"
expect_status 2 -- "$BIN" run --replay "$ST" "$SP" --shapes --time 5
expect_output "--shapes counts evaluations"
expect_status 2 -- "$BIN" run --replay "$ST" "$SP" --shapes --budget 20 --problem 16
expect_output "matches no problem"
finish
