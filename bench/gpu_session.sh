#!/usr/bin/env bash
# One call on the GPU machine: build check, the GPU tests, the transpose tuning run and the
# side-by-side benchmark. Runs from the repository root over a build/ made elsewhere
# (tools/setup) and carried along; writes everything under $OUT (default: gpu-out/).
#   bench/gpu_session.sh [all|tests|tune|bench|repeat]...
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=${BUILD:-build}
LOG="$OUT/session.log"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(all)
want() { for s in "${steps[@]}"; do [ "$s" = all ] || [ "$s" = "$1" ] && return 0; done; return 1; }
say() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$LOG"; }
export CUTUNE_BIN="$PWD/$B/cutune" CUTUNE_SRC="$PWD" CUTUNE_TMP="${TMPDIR:-/tmp}/cutune-gpu-tests"
export CUTUNE_CACHE="${CUTUNE_CACHE:-$PWD/.cache/nvrtc}"

say "build check"
{ uname -a; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv;
  ldd "$B/cutune"; "$B/cutune" version; "$B/cutune" devices; } 2>&1 | tee -a "$LOG"

if want tests; then
  say "GPU tests"
  pass=0; failn=0
  for t in "$B"/tests/gpu_* tests/cli_gpu_*.sh; do
    [ -x "$t" ] || [ "${t%.sh}" != "$t" ] || continue
    case "$t" in *.sh) cmd=(bash "$t");; *) cmd=("$t");; esac
    say "test $t"
    timeout 300 "${cmd[@]}" >"$OUT/test_$(basename "$t").log" 2>&1
    rc=$?
    tail -5 "$OUT/test_$(basename "$t").log" | tee -a "$LOG"
    if [ $rc -eq 0 ]; then pass=$((pass + 1)); else failn=$((failn + 1)); say "FAILED ($rc): $t"; fi
  done
  say "GPU tests: $pass passed, $failn failed"
fi

if want tune; then
  say "tune: cutune run lua/transpose_space.lua"
  start=$(date +%s.%N)
  "$B/cutune" run --no-progress --results results lua/transpose_space.lua 2>&1 | tee "$OUT/run1.txt"
  end=$(date +%s.%N)
  say "tune took $(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}') s"
fi

if want repeat; then
  say "repeat: a second, independent run at 8192x8192 (fresh store) to compare winners"
  rm -rf "$OUT/repeat-results"
  "$B/cutune" run --no-progress --results /tmp/repeat-results --problem "M=8192,N=8192" -q lua/transpose_space.lua 2>&1 | tee "$OUT/run2.txt"
fi

if want bench; then
  say "bench: side by side"
  bash bench/transpose.sh --no-tune --results results 2>&1 | tee "$OUT/bench.txt"
fi

tar czf "$OUT/results.tgz" results /tmp/repeat-results "$CUTUNE_TMP" 2>/dev/null
say "done"
