#!/usr/bin/env bash
# GPU check of issue 8's "what the user is told" items on a real device (about 1 minute):
# exit statuses of the tuning path, the reference compiled first through the pool, and whole
# lines in a shared log. Writes $OUT/inputs.log; the last line is "inputs: N passed, M failed".
#   bench/inputs_gpu.sh        (from the repository root, over a built build/)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=${BUILD:-build}
LOG="$OUT/inputs.log"
R=$(mktemp -d)
export CUTUNE_CACHE="$R/cache"
pass=0 failn=0
check() { # check WANT_STATUS NAME -- command...
  local want=$1 name=$2; shift 3
  "$@" >"$R/out.txt" 2>&1; local got=$?
  cat "$R/out.txt" >>"$LOG"
  if [ "$got" -eq "$want" ]; then pass=$((pass + 1)); echo "ok   $name (exit $got)" | tee -a "$LOG"
  else failn=$((failn + 1)); echo "FAIL $name: exit $got, wanted $want" | tee -a "$LOG"; fi
}
: >"$LOG"
S=tests/spaces
check 0 "all configurations fine" -- "$B/cutune" run --results "$R/res" --no-progress $S/small_ok.lua
check 3 "some configurations fail (X=2 does not compile)" -- "$B/cutune" run --results "$R/res" --no-progress $S/partly_broken.lua
check 4 "no configuration succeeds" -- "$B/cutune" run --results "$R/res" --no-progress $S/all_broken.lua
check 1 "reference does not compile" -- "$B/cutune" run --results "$R/res" --no-progress $S/ref_broken.lua
check 1 "reference misspelled" -- "$B/cutune" run --results "$R/res" --no-progress $S/ref_misspelled.lua
check 3 "invalid geometry (B=2048)" -- "$B/cutune" run --results "$R/res" -v --no-progress $S/bad_geometry.lua
grep -q "each dimension must be an integer in 1..1024 (x is 2048)" "$R/out.txt" && pass=$((pass + 1)) ||
  { failn=$((failn + 1)); echo "FAIL the invalid-geometry message is not whole with -v" | tee -a "$LOG"; }
# a shared log: every line whole (no table row broken by a progress line)
"$B/cutune" run --results "$R/res2" --budget 40 lua/transpose_space.lua 2>&1 | tee "$R/shared.txt" >/dev/null
# a progress line ("M=8192,N=8192: 12/40 (30%) ...") that does not start its own line
bad=$(grep -cE '[^,A-Z=0-9][A-Z]+=[0-9]+(,[A-Z]+=[0-9]+)*: [0-9]+/[0-9]+ \(' "$R/shared.txt")
cp "$R/shared.txt" "$OUT/inputs_shared_log.txt"
if [ "${bad:-0}" -eq 0 ]; then pass=$((pass + 1)); echo "ok   shared log: no broken lines" | tee -a "$LOG"
else failn=$((failn + 1)); echo "FAIL shared log: $bad lines with a progress line inside" | tee -a "$LOG"; fi
# interrupted: SIGINT after a few seconds -> 130
"$B/cutune" run --results "$R/res3" --no-progress lua/transpose_space.lua >"$R/int.txt" 2>&1 &
pid=$!
sleep 8; kill -INT $pid; wait $pid; got=$?
if [ "$got" -eq 130 ]; then pass=$((pass + 1)); echo "ok   interrupted (exit 130)" | tee -a "$LOG"
else failn=$((failn + 1)); echo "FAIL interrupted: exit $got, wanted 130" | tee -a "$LOG"; fi
echo "inputs: $pass passed, $failn failed" | tee -a "$LOG"
rm -rf "$R"
[ "$failn" -eq 0 ]
