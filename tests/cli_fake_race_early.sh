#!/usr/bin/env bash
# Racing before --top configurations are timed in full (docs/MEASURE.md "Racing"), through the
# fake libcuda.so.1 (tests/fake). tests/spaces/fake_race_early.lua walks launches of 2 ms (the
# best, first), 32, 2.7, 16, 4 and 8 ms: with the default --top 10 there is never a k-th best,
# so the slow ones race against --race-early (3) x the best so far: B = 64, whose check launch
# took more than 4 times that bound, on that launch alone (1 sample); B = 128, more than twice,
# after 2 samples; B = 256 after 3. Each raced record
# says so (raced_above = 3 x the best's median, race_ref "best", samples as taken); the fast
# ones are timed in full, and the winner is --race off's, which races nothing. The same on the
# microsecond launches of tests/spaces/fake_race.lua: B = 128 and 64 (3.9 and 7.2 x the best)
# race after the 3 samples of --race-samples; B = 512 and 256 are timed in full.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
run() {
  local r=$1 s=$2; shift 2
  # --strategy exhaustive: the order above (a whole-space walk is random by default)
  run_any "$BIN" run --jobs 1 --no-progress --strategy exhaustive --results "$TMPROOT/$r" "$@" "tests/spaces/$s.lua"
}
store() { echo "$TMPROOT/$1/Fake_H200/$2.jsonl"; }
# every record of a store, one line each: config, samples, raced_above/best-median ratio, race_ref
table() {
  python3 - "$1" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in recs if r["status"] == "ok"]
full = [r for r in ok if "raced_above" not in r["time_ms"]]
best = min(full, key=lambda r: r["time_ms"]["median"])
print("winner", best["config"], len(recs), "records")
for r in ok:
    t = r["time_ms"]
    if "raced_above" in t:
        # the bound is 3 x the best's median, and every sample was above it
        ratio = t["raced_above"] / best["time_ms"]["median"]
        print(r["config"], "raced", t["samples"], "%.9f" % ratio, t.get("race_ref"), t["min"] > t["raced_above"])
    else:
        print(r["config"], "full", "many" if t["samples"] >= 3 else t["samples"])  # 3 at least for long launches
PY
}

# long launches: the fewer samples of a check launch far above the bound
run early fake_race_early
[ "$STATUS" -eq 0 ] && ok || { fail "racing run: exit $STATUS"; echo "$OUTPUT" | tail -20 >&2; }
got=$(table "$(store early fake_race_early)")
want="winner B=1024 6 records
B=1024 full many
B=64 raced 1 3.000000000 best True
B=768 full many
B=128 raced 2 3.000000000 best True
B=512 full many
B=256 raced 3 3.000000000 best True"
[ "$got" = "$want" ] && ok || { fail "early racing of long launches:"; diff <(echo "$want") <(echo "$got") >&2 || true; }
expect_output "raced early: 3 of 6 timed configurations stopped before the 10th best existed" "the raced-early line"
# the same over buffers larger than twice L2 (batches, no flush): a raced configuration's
# launches are its check launch and its samples; the lead of each chunk of a long kernel's
# samples is a spin (ct_spin), not an untimed launch of the kernel (docs/MEASURE.md step 3)
FAKE_CUDA_LAUNCH_LOG=$TMPROOT/launches.log run big fake_race_big
[ "$STATUS" -eq 0 ] && ok || { fail "racing run over 128 MB: exit $STATUS"; echo "$OUTPUT" | tail -20 >&2; }
got=$(table "$(store big fake_race_big)" | grep raced || true)
want="B=64 raced 1 3.000000000 best True
B=128 raced 2 3.000000000 best True
B=256 raced 3 3.000000000 best True"
[ "$got" = "$want" ] && ok || { fail "early racing over 128 MB:"; diff <(echo "$want") <(echo "$got") >&2 || true; }
launches() { grep -c "^copy_race_long $1\$" "$TMPROOT/launches.log" || true; }
got="$(launches 64) $(launches 128) $(launches 256)"
[ "$got" = "1 3 4" ] && ok || fail "launches of B = 64, 128, 256: $got (wanted 1 3 4: the check launch and 0, 2, 3 samples)"
spins=$(grep -c "^ct_spin 1\$" "$TMPROOT/launches.log" || true)
[ "$spins" -ge 2 ] && ok || fail "$spins chunks led by ct_spin (wanted one per chunk of B = 128, 256 at least)"
expect_output "6 of 6 configurations passed (3 fully timed, 3 raced" "the table's count"
if printf '%s' "$OUTPUT" | grep -q "  raced: "; then fail "a k-th best raced line without a k-th best"; else ok; fi
run early fake_race_early
expect_output "0 measured (0 failed), 6 answered from the store" "resume"

# --race off: nothing raced, every configuration timed in full, the same winner
run off fake_race_early --race off
[ "$STATUS" -eq 0 ] && ok || fail "--race off: exit $STATUS"
got=$(table "$(store off fake_race_early)")
want="winner B=1024 6 records
B=1024 full many
B=64 full many
B=768 full many
B=128 full many
B=512 full many
B=256 full many"
[ "$got" = "$want" ] && ok || { fail "--race off:"; diff <(echo "$want") <(echo "$got") >&2 || true; }
if printf '%s' "$OUTPUT" | grep -q "raced"; then fail "--race off printed a raced line"; else ok; fi
# --race-early off: racing waits for the 10th best, which never comes
run late fake_race_early --race-early off
n=$(grep -c '"raced_above":' "$(store late fake_race_early)" || true)
[ "$n" -eq 0 ] && ok || fail "--race-early off raced $n"
# a larger factor races less: 5 x the best (10 ms) spares B = 256 (8 ms)
run five fake_race_early --race-early 5
n=$(grep -c '"raced_above":' "$(store five fake_race_early)" || true)
[ "$n" -eq 2 ] && ok || fail "--race-early 5 raced $n (wanted 2: B=64, 128)"

# microsecond launches: the --race-samples samples, the same winner's B as --race off
run short fake_race
got=$(table "$(store short fake_race)" | sed 1d | grep raced || true)
want="B=128,U=1 raced 3 3.000000000 best True
B=128,U=2 raced 3 3.000000000 best True
B=64,U=1 raced 3 3.000000000 best True
B=64,U=2 raced 3 3.000000000 best True"
[ "$got" = "$want" ] && ok || { fail "early racing of short launches:"; diff <(echo "$want") <(echo "$got") >&2 || true; }
full=$(table "$(store short fake_race)" | grep -c ' full many$' || true)
[ "$full" -eq 6 ] && ok || fail "$full configurations of fake_race timed in full (wanted 6: B >= 256)"
run shortoff fake_race --race off
w1=$(table "$(store short fake_race)" | head -1 | cut -d, -f1)
w2=$(table "$(store shortoff fake_race)" | head -1 | cut -d, -f1)
[ "$w1" = "winner B=1024" ] && [ "$w1" = "$w2" ] && ok || fail "winners: '$w1' raced, '$w2' with --race off"

expect_status 2 -- "$BIN" run --race-early 1 tests/spaces/fake_race_early.lua
expect_output "--race-early needs a factor from 1.5 to 1000 or 'off'" "bad --race-early"
finish
