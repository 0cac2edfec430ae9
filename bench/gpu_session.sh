#!/usr/bin/env bash
# One call on the GPU machine: build check, the transpose tuning run, the side-by-side
# benchmark, the GPU tests, and a second independent run to compare winners. Runs from the
# repository root over a build/ made elsewhere (tools/setup) and carried along; logs go to
# $OUT (default gpu-out/): session.log, run1.txt, run2.txt, bench.txt, logs.tgz, results.tgz.
#   bench/gpu_session.sh [all|check|tune|bench|tests|repeat|devices]...
# `devices` (not part of all): the transpose space at 8192x8192 from a warm compile cache, once
# on one device (a plain run) and once with --devices all; prints the rate per device count and
# both winners (devices-plain.txt, devices-all.txt). On a one-GPU machine both runs use the one
# device: the rates should match and so should the winners (within run-to-run noise).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=${BUILD:-build}
LOGS=${TMPDIR:-/tmp}/cutune-gpu-logs
rm -rf "$LOGS" && mkdir -p "$LOGS"
LOG="$OUT/session.log"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(all)
want() { for s in "${steps[@]}"; do if { [ "$s" = all ] && [ "$1" != devices ]; } || [ "$s" = "$1" ]; then return 0; fi; done; return 1; }
say() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$LOG"; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
export CUTUNE_BIN="$PWD/$B/cutune" CUTUNE_SRC="$PWD" CUTUNE_TMP="$LOGS/tests"
export CUTUNE_CACHE="${CUTUNE_CACHE:-${TMPDIR:-/tmp}/cutune-cache}"

say "build check"
{ uname -m; nproc; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
  ldd "$B/cutune"; "$B/cutune" version; "$B/cutune" devices; } 2>&1 | tee -a "$LOG"

if want tune; then
  say "tune: cutune run lua/transpose_space.lua (cold compile cache)"
  t=$(date +%s.%N)
  timeout 420 "$B/cutune" run --no-progress --results results lua/transpose_space.lua >"$OUT/run1.txt" 2>&1
  say "tune exit $? after $(elapsed "$t") s"
  grep -E "measured|configurations|copy|^ *1 " "$OUT/run1.txt" | head -30 | tee -a "$LOG"
fi

if want bench; then
  say "bench: side by side"
  t=$(date +%s.%N)
  RESULTS=results OUT="$LOGS/bench" timeout 240 bash bench/transpose.sh --no-tune >"$OUT/bench.txt" 2>&1
  say "bench exit $? after $(elapsed "$t") s"
  tail -25 "$OUT/bench.txt" | tee -a "$LOG"
fi

if want tests; then
  say "GPU tests"
  pass=0; failn=0
  for t in "$B"/tests/gpu_* tests/cli_gpu_*.sh; do
    [ -f "$t" ] || continue
    case "$t" in *.sh) cmd=(bash "$t");; *) [ -x "$t" ] || continue; cmd=("$t");; esac
    n=$(basename "$t")
    s=$(date +%s.%N)
    timeout 240 "${cmd[@]}" >"$LOGS/test_$n.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then pass=$((pass + 1)); say "PASS $n ($(elapsed "$s") s)"; else failn=$((failn + 1)); say "FAIL $n (exit $rc)"; tail -15 "$LOGS/test_$n.log" | tee -a "$LOG"; fi
  done
  say "GPU tests: $pass passed, $failn failed"
fi

if want repeat; then
  say "repeat: a second, independent run at 8192x8192 into a fresh store"
  t=$(date +%s.%N)
  timeout 240 "$B/cutune" run --no-progress --results "$LOGS/repeat-results" --problem "M=8192,N=8192" lua/transpose_space.lua >"$OUT/run2.txt" 2>&1
  say "repeat exit $? after $(elapsed "$t") s"
  grep -E "measured|^ *1 " "$OUT/run2.txt" | head -5 | tee -a "$LOG"
fi

if want devices; then
  n=$("$B/cutune" devices --count 2>/dev/null || echo 0)
  P=${DEVICES_PROBLEM:-M=8192,N=8192}
  SP=${DEVICES_SPACE:-lua/transpose_space.lua}
  say "devices: $n CUDA device(s); $SP at $P, compile cache warmed first"
  "$B/cutune" run --compile-only --no-progress -q --problem "$P" "$SP" >"$LOGS/devices-warm.txt" 2>&1
  for mode in plain all; do
    args=()
    k=1
    [ $mode = all ] && args=(--devices all) && k=$n
    f="$OUT/devices-$mode.txt"
    t=$(date +%s.%N)
    timeout 300 "$B/cutune" run --no-progress --results "$LOGS/devices-results-$mode" --problem "$P" \
      "${args[@]}" "$SP" >"$f" 2>&1
    rc=$?
    rate=$(sed -n 's/.*measured in .* (\([0-9.]*\) per second end to end).*/\1/p' "$f")
    say "devices: ${args[*]:-plain run} on $k device(s): exit $rc after $(elapsed "$t") s, ${rate:-?} configurations/s"
    grep -m1 -E "^ +1 " "$f" | sed 's/^/  winner: /' | tee -a "$LOG"
  done
fi

tar czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null
tar czf "$OUT/results.tgz" results 2>/dev/null
say "done"
