#!/usr/bin/env bash
# judged_session.sh: one call on the GPU machine that measures what issues 20, 21 and 22 are
# judged on, in that call's time: each step starts only while the time left covers its estimate,
# and a step skipped is said so. The other scripts do the work; this one orders them, keeps the
# call inside the device's per-call limit and gathers their summaries into one file.
#
#   CUTUNE=.gpu/bin/cutune bench/judged_session.sh
#   STEPS="start rate" BUDGET=300 CUTUNE=... bench/judged_session.sh
#
# Steps (STEPS, default "start rate kt shapes tests"; estimates on an H100 or H200):
#   start   a small cold run (lua/vecadd_space.lua, one problem, 16 configurations) with
#           CUTUNE_TRACE: where the start goes (the driver, the context, the helper kernels, the
#           problem's setup, the first records), ~3 s
#   rate    issue 21: bench/rate_session.sh with CHEAP=1 STEPS="on off matmul kt" (the cold
#           transpose run, racing off against on, the cold matmul default search, Kernel Tuner on
#           the transpose space), ~240 s
#   kt      issue 22: bench/kernel_tuner_examples.sh, SECONDS_EACH (8) per tool and example,
#           ~160 s; needs Kernel Tuner's examples in KT_SRC (default .shared/kt) and its wheels in
#           WHEELS (default .whl), else that half is skipped
#   shapes  issue 20: bench/shapes.sh over the committed headers against cuBLAS and cudaMemcpy,
#           ~40 s of timing plus the build (about a minute on 16 cores; SKIP_BUILD=1 with
#           W=<a folder holding shapes_bench built here by BUILD_ONLY=1 ARCH=90>)
#   tests   tests/gpu_measure (GPU_MEASURE, default build/tests/gpu_measure) and
#           tests/cli_gpu_*.sh on CUTUNE, ~150 s
#
# Environment: CUTUNE (default build/cutune), OUT (default gpu-out), BUDGET (seconds the whole
# call may take, default 560: the device's limit is 600), STEPS, SECONDS_EACH, KT_SRC, WHEELS,
# GPU_MEASURE. Writes $OUT/judged.txt (the summary: every step's figures) beside the files of
# the scripts it runs (rate_session.txt, kernel_tuner_examples.txt, shapes.txt, ...). Exit
# status 0 unless a step could not start at all (no cutune binary: 2).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
CUTUNE=${CUTUNE:-build/cutune}
OUT=${OUT:-gpu-out}
BUDGET=${BUDGET:-560}
STEPS=${STEPS:-start rate kt shapes tests}
[ -x "$CUTUNE" ] || { echo "judged_session.sh: no cutune binary at $CUTUNE (CUTUNE=...)" >&2; exit 2; }
CUTUNE=$(cd "$(dirname "$CUTUNE")" && pwd)/$(basename "$CUTUNE")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SUM="$OUT/judged.txt"
: > "$SUM"
T0=$(date +%s)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
say() { echo "$*" | tee -a "$SUM"; }
left() { echo $((BUDGET - ($(date +%s) - T0))); }
# step NAME ESTIMATE: whether step NAME is asked for and its estimate fits the time left
step() {
  case " $STEPS " in *" $1 "*) ;; *) return 1 ;; esac
  local l
  l=$(left)
  if [ "$l" -lt "$2" ]; then
    say "== $1: skipped, ${l} s left of BUDGET=$BUDGET and it takes ~$2 s"
    return 1
  fi
  say "== $1 ($(date -u +%H:%M:%S), ${l} s left)"
}

say "judged_session.sh: $(git log -1 --format='%h %s' 2>/dev/null | cut -c1-100)"
say "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"

if step start 10; then
  C="$W/start"
  mkdir -p "$C"
  CUTUNE_CACHE="$C/cache" CUDA_CACHE_PATH="$C/cache/nvrtc" CUTUNE_TRACE="$C/trace" timeout 60 "$CUTUNE" run \
    --no-progress --problem 0 --budget 16 --results "$C/r" lua/vecadd_space.lua > "$C/log" 2>&1
  rc=$?
  say "exit $rc; $(grep -h 'configurations measured in' "$C/log" | cut -c1-90)"
  grep -E "cuInit|context|helper|GPU workers up|set up|record 1 |problems done" "$C/trace" 2>/dev/null |
    sed 's/  pid [0-9]*//' | tee -a "$SUM"
fi

if step rate 240; then
  CUTUNE="$CUTUNE" CHEAP=1 STEPS="on off matmul kt" OUT="$OUT" TMPDIR="$W" \
    timeout $(($(left) - 5)) bash bench/rate_session.sh > "$W/rate.log" 2>&1
  rc=$?
  say "rate_session.sh exit $rc"
  sed -n '/^rate_session summary/,$p' "$OUT/rate_session.txt" 2>/dev/null | tee -a "$SUM"
fi

if step kt 160; then
  SECONDS_EACH=${SECONDS_EACH:-8} CUTUNE="$CUTUNE" KT_SRC=${KT_SRC:-.shared/kt} WHEELS=${WHEELS:-.whl} OUT="$OUT" \
    timeout $(($(left) - 5)) bash bench/kernel_tuner_examples.sh > "$W/kt.log" 2>&1
  rc=$?
  say "kernel_tuner_examples.sh exit $rc"
  sed -n '/^example /,$p' "$OUT/kernel_tuner_examples.txt" 2>/dev/null | tee -a "$SUM"
fi

if step shapes 100; then
  OUT="$OUT" timeout $(($(left) - 5)) bash bench/shapes.sh > "$W/shapes.log" 2>&1
  rc=$?
  say "shapes.sh exit $rc"
  sed -n '/^== summary/,$p' "$OUT/shapes.txt" 2>/dev/null | tee -a "$SUM"
fi

if step tests 150; then
  GM=${GPU_MEASURE:-build/tests/gpu_measure}
  if [ -x "$GM" ]; then
    timeout 120 "$GM" > "$W/gm.log" 2>&1
    rc=$?
    say "gpu_measure exit $rc: $(tail -1 "$W/gm.log")"
  else
    say "gpu_measure: no binary at $GM (GPU_MEASURE=...)"
  fi
  for t in tests/cli_gpu_*.sh; do
    [ "$(left)" -gt 30 ] || { say "$(basename "$t"): skipped, the time is spent"; continue; }
    CUTUNE_BIN="$CUTUNE" CUTUNE_SRC="$PWD" CUTUNE_TMP="$W/ct" timeout $(($(left) - 10)) bash "$t" > "$W/t.log" 2>&1
    rc=$?
    say "${t#tests/} exit $rc: $(grep -E '^[0-9]+ passed|^skipped' "$W/t.log" | tail -1)"
  done
fi
say "judged_session.sh: $(($(date +%s) - T0)) s"
exit 0
