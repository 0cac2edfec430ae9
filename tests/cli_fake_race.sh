#!/usr/bin/env bash
# Racing through the fake libcuda.so.1 (tests/fake; docs/MEASURE.md): the fake's copy_race is
# slow by design below 1024 threads per block, and the space walks the two fast configurations
# first. With --top 2 every later configuration loses to the 2nd best after its first
# --race-samples samples: recorded ok with "raced_above" (the bound it lost to) and exactly
# that many samples, counted as raced in the tables and the "raced:" line, never in the table
# of the best. --race off times every one in full; a margin larger than the gap races nothing.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
S=tests/spaces/fake_race.lua
# --strategy exhaustive: the enumeration's order (a whole-space walk is random by default);
# CUTUNE_PREFETCH=0: no compiles while the GPU worker starts, so that the two fast ones are timed
# before the slow ones reach the GPU (prefetched, B=512 would be queued behind them before the
# 2nd best exists, and be timed in full against 3 x the best: right, but not this test's point)
export CUTUNE_PREFETCH=0
run() { local r=$1; shift; run_any "$BIN" run --jobs 1 --no-progress --strategy exhaustive --top 2 --results "$TMPROOT/$r" "$@" "$S"; }
store() { echo "$TMPROOT/$1/Fake_H200/fake_race.jsonl"; }

run race --race-samples 4
[ "$STATUS" -eq 0 ] && ok || { fail "racing run: exit $STATUS"; echo "$OUTPUT" | tail -20 >&2; }
st=$(store race)
n=$(grep -c . "$st" || true)
[ "$n" -eq 10 ] && ok || fail "racing run stored $n records (wanted 10)"
raced=$(grep -c '"raced_above":' "$st" || true)
[ "$raced" -eq 8 ] && ok || fail "$raced raced records (wanted 8: every B < 1024)"
# the raced ones are exactly the slow ones, each with the 4 samples of the first test
bad=$(grep '"raced_above":' "$st" | grep -c '"B":"1024"' || true)
[ "$bad" -eq 0 ] && ok || fail "$bad fast configurations (B=1024) were raced"
four=$(grep '"raced_above":' "$st" | grep -c '"samples":4,' || true)
[ "$four" -eq 8 ] && ok || fail "$four of 8 raced records have 4 samples"
full=$(grep '"B":"1024"' "$st" | grep -v '"raced_above"' | grep -c '"status":"ok"' || true)
[ "$full" -eq 2 ] && ok || fail "$full fast configurations timed in full (wanted 2)"
# every raced record: the bound is the 2nd best x 1.02 (--race's default) and its fastest sample is above it
python3 - "$st" <<'PY' && ok || fail "a raced record's bound or samples are wrong"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
full = sorted(r["time_ms"]["median"] for r in recs if "raced_above" not in r["time_ms"])
raced = [r for r in recs if "raced_above" in r["time_ms"]]
ok = len(full) == 2 and all(r["status"] == "ok" and r["time_ms"]["min"] > r["time_ms"]["raced_above"]
                            and abs(r["time_ms"]["raced_above"] - full[1] * 1.02) < 1e-9 * full[1] for r in raced)
sys.exit(0 if ok else 1)
PY
expect_output "raced: 8 of 10 timed configurations stopped early, slower than the 2nd best" "the raced line"
expect_output "10 of 10 configurations passed (2 fully timed, 8 raced" "the table's count"
# the table of the best holds the two fast ones, neither marked raced
top=$(printf '%s\n' "$OUTPUT" | grep -E '^  [12] ' || true)
if printf '%s\n' "$top" | grep -q ' 1024 ' && ! printf '%s\n' "$top" | grep -q raced; then ok; else fail "table of the best: $top"; fi
expect_output "time: the GPU worked" "the time line"
expect_output "ms per configuration (load " "the time line's split"

# resumed: the raced records answer from the store like any other
run race --race-samples 4
expect_output "0 measured (0 failed), 10 answered from the store" "resume"

# --race off: nothing raced, every configuration timed in full
run off --race off
[ "$STATUS" -eq 0 ] && ok || fail "--race off: exit $STATUS"
raced=$(grep -c '"raced_above":' "$(store off)" || true)
[ "$raced" -eq 0 ] && ok || fail "--race off raced $raced"
if printf '%s' "$OUTPUT" | grep -q "raced:"; then fail "--race off printed a raced line"; else ok; fi
# a wider margin races only what is slower by more: the fake's launches take 3 us + 2.1 us x
# 1024/B, so B = 512 is 1.4x the fast ones, 256 2.2x, 128 3.9x, 64 7.2x: --race 1 (twice the
# 2nd best) races B <= 256 only
run wide --race 1
raced=$(grep -c '"raced_above":' "$(store wide)" || true)
[ "$raced" -eq 6 ] && ok || fail "--race 1 raced $raced (wanted 6: B=256, 128, 64)"
# the order of a whole-space walk: tests/spaces/fake_race_order.lua enumerates its slowest
# configurations first and each block size beats the one before, so in that order
# (--strategy exhaustive) every configuration is timed in full; the default walk, a seeded
# random order, meets fast ones early and races most of the rest, with the same winner
# (--no-cache: configurations the cache holds come back first and would reorder the walk)
O=tests/spaces/fake_race_order.lua
run_any "$BIN" run --jobs 1 --no-progress --top 2 --no-cache --results "$TMPROOT/ord-x" --strategy exhaustive "$O"
[ "$STATUS" -eq 0 ] && ok || fail "exhaustive walk: exit $STATUS"
rx=$(grep -c '"raced_above":' "$TMPROOT/ord-x/Fake_H200/fake_race_order.jsonl" || true)
run_any "$BIN" run --jobs 1 --no-progress --top 2 --no-cache --results "$TMPROOT/ord-r" "$O"
[ "$STATUS" -eq 0 ] && ok || fail "default walk: exit $STATUS"
expect_output "30 configurations, strategy random (the whole space, in a seeded random order)" "the default walk"
so="$TMPROOT/ord-r/Fake_H200/fake_race_order.jsonl"
rr=$(grep -c '"raced_above":' "$so" || true)
n=$(grep -c '"status":"ok"' "$so" || true)
[ "$n" -eq 30 ] && ok || fail "the default walk measured $n of 30"
[ "$rx" -le 2 ] && [ "$rr" -ge 12 ] && ok || fail "raced: $rx in the enumeration's order, $rr in the default's (wanted <= 2 and >= 12)"
# the two best of both walks are fast ones (B = 1024), timed in full
for f in "$TMPROOT/ord-x/Fake_H200/fake_race_order.jsonl" "$so"; do
  python3 - "$f" <<'PY' && ok || fail "$f: the two best are not B=1024 timed in full"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
full = sorted((r for r in recs if "raced_above" not in r["time_ms"]), key=lambda r: r["time_ms"]["median"])
sys.exit(0 if len(full) >= 2 and all(r["params"]["B"] == "1024" for r in full[:2]) else 1)
PY
done
# the same seed walks the same order: a second store gets the same raced set
run_any "$BIN" run --jobs 1 --no-progress --top 2 --no-cache --results "$TMPROOT/ord-r2" "$O"
a=$(grep '"raced_above":' "$so" | sed -n 's/.*"config":"\([^"]*\)".*/\1/p' | sort)
b=$(grep '"raced_above":' "$TMPROOT/ord-r2/Fake_H200/fake_race_order.jsonl" | sed -n 's/.*"config":"\([^"]*\)".*/\1/p' | sort)
[ -n "$a" ] && [ "$a" = "$b" ] && ok || fail "two default walks under one seed raced different configurations"

expect_status 2 -- "$BIN" run --race fast "$S"
expect_output "--race needs a margin" "bad --race"
expect_status 2 -- "$BIN" run --race-samples 1 "$S"
finish
