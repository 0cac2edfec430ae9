#!/usr/bin/env bash
# One call on the GPU machine: build check, the transpose tuning run, the side-by-side
# benchmark, the GPU tests, and a second independent run to compare winners. Runs from the
# repository root over a build/ made elsewhere (tools/setup) and carried along; logs go to
# $OUT (default gpu-out/): session.log, run1.txt, run2.txt, bench.txt, logs.tgz, results.tgz.
#   bench/gpu_session.sh [all|check|tune|bench|tests|repeat|explain|energy|launcher|convolution|compile|inputs|matmul|matmul-long|vecadd|mmvariants|mmrecheck|devices]...
# The last twelve run only when named (not with all).
# `explain` (not part of `all`): cutune explain under ncu on the transpose store at 8192^2 (top 3,
# the best of each TILE, the seed's naive / unpadded / padded kernels) -> explain.txt; the
# sanitizers on the same configurations (ragged problem) -> sanitize.txt; the planted race and
# out-of-bounds fixtures -> sanitize_planted.txt; the HTML report -> transpose_report.html.
# energy: the transpose space with time and energy objectives, a small budget, into a fresh
#   store; then the time/energy Pareto front (`cutune best`) -> energy.txt.
# launcher: tests/cli_gpu_launcher.sh — the production launchers (transpose, SGEMM, vecadd)
#   built by plain nvcc from the committed headers, checked at every size of their space (and
#   ragged ones) and timed against cutune's same-call figure -> launcher.txt (about 3 minutes).
# convolution: tunes lua/convolution_space.lua on this GPU into results/, then writes a header
#   merged with the Kernel Tuner caches in caches/convolution/ (A100, A4000, A6000: copy them
#   from shared/data/tuning-caches/convolution/ and carry the ignored folder caches/) ->
#   convolution.txt, convolution.h, results/<gpu>/convolution.jsonl in results.tgz. The run
#   stops after CONV_TIMEOUT s (420) and resumes where it stopped when run again; CONV_BUDGET=N
#   limits it to N configurations (bandit).
# compile: bench/compile_space.sh on this host's CPUs -- the whole
# transpose space compiled cold for sm_90, then 5 fully cached re-runs timed -> $OUT/compile.txt.
# inputs: bench/inputs_gpu.sh -- exit statuses, the reference first, whole lines in a shared log
#   -> inputs.log.
# matmul, matmul-long, vecadd (about 7.5, 5.5 and 1.5 minutes: one call each): they run bench/matmul_session.sh matmul|long|vecadd
# (see its header: verify, default budget over seeds, long run, Kernel Tuner, cuBLAS benchmark);
# Kernel Tuner's wheels are read from $WHEELS (default .whl).
# mmvariants (about 3 minutes): bench/matmul_session.sh variants -- lua/matmul_variants.lua (the
#   4096^3 winner and the REGDB=2/SDB/STAGES/HOIST/BK variants around it) measured whole at 4096^3
#   and checked on the ragged problems, bench/matmul.sh on its best vs cuBLAS, and the cold compile
#   rate of lua/matmul_space.lua (--budget 300) -> matmul_session.txt, matmul_logs.tgz.
# mmrecheck (about 45 s): bench/matmul_recheck.sh -- the two configurations whose REGDB=2 barrier
#   raced (REGDB=2 STAGES=3, 4x4 thread tiles) with the committed barrier, the old plain one and
#   one whose predicate reads both fragment slots, the REGDB=1 / STAGES controls and the best
#   REGDB=2 configurations, 400 checked runs each at 4096^3 -> matmul_recheck.txt (its header
#   says how to read it; only the PLAIN rows may fail).
# devices: the transpose space at 8192x8192 from a warm compile cache, once
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
want() { for s in "${steps[@]}"; do if [ "$s" = all ] || [ "$s" = "$1" ]; then return 0; fi; done; return 1; }
# the shipping stages run only when named (all keeps its old length)
named() { for s in "${steps[@]}"; do if [ "$s" = "$1" ]; then return 0; fi; done; return 1; }
say() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$LOG"; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
export CUTUNE_BIN="$PWD/$B/cutune" CUTUNE_SRC="$PWD" CUTUNE_TMP="$LOGS/tests"
export CUTUNE_CACHE="${CUTUNE_CACHE:-${TMPDIR:-/tmp}/cutune-cache}"
# NVRTC's own cache (CUDA 12.9+, the driver's compute cache) lives inside cutune's, so a cold
# cutune cache is a cold start for NVRTC too (bench/matmul_session.sh says why)
export CUDA_CACHE_PATH="${CUDA_CACHE_PATH:-$CUTUNE_CACHE/nvrtc}"

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

if named compile; then
  say "compile: the whole space cold, then fully cached re-runs (bench/compile_space.sh)"
  t=$(date +%s.%N)
  BUILD="$B" OUT="$LOGS/compile" REPEAT=5 timeout 400 bash bench/compile_space.sh lua/transpose_space.lua sm_90 >"$OUT/compile.txt" 2>&1
  say "compile exit $? after $(elapsed "$t") s"
  tee -a "$LOG" < "$OUT/compile.txt"
fi

if want repeat; then
  say "repeat: a second, independent run at 8192x8192 into a fresh store"
  t=$(date +%s.%N)
  timeout 240 "$B/cutune" run --no-progress --results "$LOGS/repeat-results" --problem "M=8192,N=8192" lua/transpose_space.lua >"$OUT/run2.txt" 2>&1
  say "repeat exit $? after $(elapsed "$t") s"
  grep -E "measured|^ *1 " "$OUT/run2.txt" | head -5 | tee -a "$LOG"
fi

if named explain; then
  # the seed's kernels: naive 32x32; 32x32 tile, 32x8 threads, its 4-row loop unrolled (as nvcc
  # does), without and with padding; and the padded tile with one load in flight (UNROLL=0)
  SEEDS=(--config TILE=0,BLOCK_ROWS=32 --config TILE=32,PAD=0,SWIZZLE=0,BLOCK_ROWS=8,VEC=1,UNROLL=1,LDG=0,ORDER=0
         --config TILE=32,PAD=1,SWIZZLE=0,BLOCK_ROWS=8,VEC=1,UNROLL=1,LDG=0,ORDER=0
         --config TILE=32,PAD=1,SWIZZLE=0,BLOCK_ROWS=8,VEC=1,UNROLL=0,LDG=0,ORDER=0)
  say "explain: ncu on the transpose store, 8192x8192 (top 3, best of each TILE, the seed's kernels)"
  t=$(date +%s.%N)
  timeout 330 "$B/cutune" explain lua/transpose_space.lua --results results --problem M=8192,N=8192 --top 3 \
    "${SEEDS[@]}" --tool-timeout 90 >"$OUT/explain.txt" 2>&1
  say "explain exit $? after $(elapsed "$t") s"
  grep -E "^  (#|time|DRAM|global|shared|bank)" "$OUT/explain.txt" | head -24 | tee -a "$LOG"
  say "explain --sanitize: memcheck, initcheck, racecheck on the winner and the seed's kernels (ragged problem)"
  t=$(date +%s.%N)
  timeout 240 "$B/cutune" explain lua/transpose_space.lua --results results --no-profile --sanitize --top 1 \
    --no-param-values "${SEEDS[@]}" --tool-timeout 60 >"$OUT/sanitize.txt" 2>&1
  say "sanitize exit $? after $(elapsed "$t") s"
  grep -E "clean|flagged|error" "$OUT/sanitize.txt" | head -16 | tee -a "$LOG"
  t=$(date +%s.%N)
  timeout 240 bash tests/cli_gpu_sanitize.sh >"$OUT/sanitize_planted.txt" 2>&1
  say "planted race / out-of-bounds fixtures: exit $? after $(elapsed "$t") s"
  tail -3 "$OUT/sanitize_planted.txt" | tee -a "$LOG"
  "$B/cutune" report lua/transpose_space.lua --results results -o "$OUT/transpose_report.html" 2>&1 | tee -a "$LOG"
fi

if named energy; then
  say "energy: transpose, objectives time + energy, budget 150 per problem, fresh store"
  t=$(date +%s.%N)
  timeout 300 "$B/cutune" run --no-progress --results "$LOGS/energy-results" --strategy random --budget 150 \
    --energy-top 12 --energy-within 0.25 lua/transpose_energy.lua >"$OUT/energy.txt" 2>&1
  say "energy run exit $? after $(elapsed "$t") s"
  grep -E "energy pass|no energy figure" "$OUT/energy.txt" | tee -a "$LOG"
  "$B/cutune" best --space lua/transpose_energy.lua "$LOGS/energy-results" 2>&1 | tee -a "$OUT/energy.txt" | tee -a "$LOG"
  "$B/cutune" best --json --space lua/transpose_energy.lua "$LOGS/energy-results" >"$OUT/energy_front.json" 2>&1
fi

if named launcher; then
  say "launcher: kernels/example built by nvcc from results/{transpose,matmul,vecadd}.h, against cutune in the same call"
  t=$(date +%s.%N)
  CUTUNE_LAUNCHER_NVCC=1 timeout 540 bash tests/cli_gpu_launcher.sh >"$OUT/launcher.txt" 2>&1
  say "launcher exit $? after $(elapsed "$t") s"
  grep -E "^==|^size|^cutune:|passed|FAIL|SLOWER|WRONG" "$OUT/launcher.txt" | tee -a "$LOG"
fi

if named convolution; then
  say "convolution: tune lua/convolution_space.lua, then a header merged with caches/convolution/*.json.gz"
  t=$(date +%s.%N)
  timeout "${CONV_TIMEOUT:-420}" "$B/cutune" run --no-progress --results results ${CONV_BUDGET:+--budget $CONV_BUDGET} lua/convolution_space.lua >"$OUT/convolution.txt" 2>&1
  say "convolution tune exit $? after $(elapsed "$t") s"
  grep -E "measured|configurations|^ *1 " "$OUT/convolution.txt" | head -12 | tee -a "$LOG"
  ls caches/convolution/*.json.gz 2>&1 | tee -a "$LOG"
  "$B/cutune" header lua/convolution_space.lua --kt-problem W,H results caches/convolution/A100.json.gz \
    caches/convolution/A4000.json.gz caches/convolution/A6000.json.gz -o "$OUT/convolution.h" 2>&1 | tee -a "$LOG"
  sed -n '/Performance portability/,/Launch contract/p' "$OUT/convolution.h" | tee -a "$LOG"
  grep -E "^    /\* (device|arch|default)" "$OUT/convolution.h" | tee -a "$LOG"
fi

if named inputs; then
  say "inputs: exit statuses, reference first, whole lines in a shared log (bench/inputs_gpu.sh)"
  t=$(date +%s.%N)
  OUT="$OUT" BUILD="$B" timeout 300 bash bench/inputs_gpu.sh >/dev/null 2>&1
  say "inputs exit $? after $(elapsed "$t") s"
  tail -12 "$OUT/inputs.log" | tee -a "$LOG"
fi

for k in matmul matmul-long vecadd mmvariants; do
  if named $k; then
    m=${k#matmul-}; [ $k = mmvariants ] && m=variants
    say "$k: bench/matmul_session.sh $m"
    CUTUNE="$B/cutune" OUT="$OUT" bash bench/matmul_session.sh "$m" 2>&1 | tail -80 >>"$LOG"
    say "$k exit $?"
  fi
done

if named mmrecheck; then
  say "mmrecheck: bench/matmul_recheck.sh (repeated checks of the REGDB=2 wrong_result)"
  t=$(date +%s.%N)
  OUT="$OUT" timeout 420 bash bench/matmul_recheck.sh >/dev/null 2>&1
  say "mmrecheck exit $? after $(elapsed "$t") s"
  grep -E "^(==|RESULT|run )" "$OUT/matmul_recheck.txt" | tail -40 | tee -a "$LOG"
fi

if named devices; then
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
