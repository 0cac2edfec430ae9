#!/usr/bin/env bash
# One call on the GPU machine: build check, the transpose tuning run, the side-by-side
# benchmark, the GPU tests, and a second independent run to compare winners. Runs from the
# repository root over a build/ made elsewhere (tools/setup) and carried along; logs go to
# $OUT (default gpu-out/): session.log, run1.txt, run2.txt, bench.txt, logs.tgz, results.tgz.
#   bench/gpu_session.sh [all|check|tune|bench|tests|repeat|matmul|matmul-long|vecadd]...
# matmul, matmul-long and vecadd are not part of all (about 7.5, 5.5 and 1.5 minutes: one call
# each): they run bench/matmul_session.sh matmul|long|vecadd
# (see its header: verify, default budget over seeds, long run, Kernel Tuner, cuBLAS benchmark);
# Kernel Tuner's wheels are read from $WHEELS (default .whl).
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
want() { for s in "${steps[@]}"; do if [ "$s" = all ] || [ "$s" = "$1" ]; then return 0; fi; done; return 1; }
only() { for s in "${steps[@]}"; do if [ "$s" = "$1" ]; then return 0; fi; done; return 1; }
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

for k in matmul matmul-long vecadd; do
  if only $k; then
    say "$k: bench/matmul_session.sh $k"
    CUTUNE="$B/cutune" OUT="$OUT" bash bench/matmul_session.sh "${k#matmul-}" 2>&1 | tail -60 >>"$LOG"
    say "$k exit $?"
  fi
done

tar czf "$OUT/logs.tgz" -C "$LOGS" . 2>/dev/null
tar czf "$OUT/results.tgz" results 2>/dev/null
say "done"
