#!/bin/bash
# cli_gpu_launcher (GPU): the production launchers built by nvcc from the committed headers
# (kernels/example, for this device's architecture) are right at every size of their space and
# at small ragged ones, and their time is within 2 % of what cutune measures for the same
# configuration in the same call (lua/<space>_pinned.lua: the space restricted to the header's
# configurations, into a fresh store):
#   transpose   transpose_example: equal to a CPU transpose;
#   matmul      sgemm_example: within the FP32 tolerance of a float64 reference kernel at 4096^3,
#               the space's non-square and ragged sizes and tiny ones (1x1x1 ... 5x7x0), the
#               floats after C untouched;
#   vecadd      vecadd_example: bit for bit a + b at 2^28, 2^24, 2^20, 2^24+3 and 1, 3, 5, 1000003.
# Each prints "all sizes passed" when right and, with --within, a line per size
# "size S: T ms (...), reference R ms: ratio X". Set CUTUNE_LAUNCHER_WITHIN to change the 0.02
# (CUTUNE_LAUNCHER_WITHIN_SMALL the 0.05 for sizes cutune timed under 50 us);
# CUTUNE_LAUNCHER_NVCC=1 builds with plain nvcc (kernels/build_nvcc.sh) even where CMake exists;
# CUTUNE_LAUNCHER_SPACES limits the spaces checked (default "transpose matmul vecadd").
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
gpu_or_skip
NVCC=${CUTUNE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
within=${CUTUNE_LAUNCHER_WITHIN:-0.02}
within_small=${CUTUNE_LAUNCHER_WITHIN_SMALL:-0.05}
arch=$("$BIN" devices | sed -nE 's/^0: .*\(sm_([0-9]+),.*/\1/p' | head -1)
[ -n "$arch" ] || { fail "no architecture from cutune devices"; finish; exit 1; }

BUILD="$TMPROOT/build"
if [ -z "${CUTUNE_LAUNCHER_NVCC:-}" ] && command -v cmake >/dev/null 2>&1; then
  expect_status 0 -- cmake -S kernels/example -B "$TMPROOT/build" -DCUTUNE_DIR="$SRC" -DCUTUNE_ARCHS="$arch" \
    -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_BUILD_TYPE=Release
  expect_status 0 -- cmake --build "$TMPROOT/build" -j4
else # no CMake on this machine: plain nvcc, the same units as cmake/CutuneKernels.cmake
  expect_status 0 -- env NVCC="$NVCC" bash kernels/build_nvcc.sh "$arch" "$TMPROOT/build"
fi

# against_cutune SPACE PROGRAM PROBLEM_FN SIZE...: which configuration PROGRAM's launcher picks per
# size (and that its output is right at its default sizes), then cutune measures the same
# configurations now (lua/SPACE_pinned.lua), then PROGRAM times its launcher at each SIZE against
# that measurement. PROBLEM_FN SIZE prints the store's problem key of SIZE.
against_cutune() {
  local space=$1 prog=$2 problem_fn=$3 s c t pins="" args=()
  shift 3
  local sizes=("$@")
  declare -A cfg=()
  echo "== $space: $prog"
  expect_status 0 -- "$BUILD/$prog"
  echo "$OUTPUT"
  expect_output "all sizes passed"
  for s in "${sizes[@]}"; do
    c=$(printf '%s\n' "$OUTPUT" | sed -nE "s/^size $s: config [0-9]+ ([^ ]+) .*/\1/p")
    [ -n "$c" ] || { fail "$space: no configuration printed for $s"; continue; }
    cfg[$s]=$c
    case ";$pins;" in *";$c;"*) ;; *) pins="$pins;$c" ;; esac
  done
  expect_status 0 -- env CUTUNE_PIN="${pins#;}" "$BIN" run --no-progress --results "$TMPROOT/results-$space" \
    lua/${space}_pinned.lua
  local store small=()
  store=$(ls "$TMPROOT/results-$space"/*/$space.jsonl 2>/dev/null | head -1 || true)
  [ -n "$store" ] || { fail "$space: cutune wrote no store"; return 0; }
  for s in "${sizes[@]}"; do
    [ -n "${cfg[$s]:-}" ] || continue
    t=$(grep -F "\"config\":\"${cfg[$s]}\"" "$store" | grep -F "\"problem\":\"$($problem_fn "$s")\"" |
        sed -nE 's/.*"t_median":([0-9.eE+-]+).*/\1/p' | tail -1)
    [ -n "$t" ] || { fail "$space: cutune recorded nothing for ${cfg[$s]} at $s"; continue; }
    echo "cutune: $space $s ${cfg[$s]} $t ms"
    if awk -v t="$t" 'BEGIN { exit !(t < 0.05) }'; then small+=("$s=$t"); else args+=("$s=$t"); fi
  done
  # sizes cutune timed under 50 us (single launches after an L2 flush, where the events' ~0.5 us
  # resolution is a per cent or more) are held to $within_small
  if [ ${#args[@]} -gt 0 ]; then
    expect_status 0 -- "$BUILD/$prog" --within "$within" "${args[@]}"
    echo "$OUTPUT"
    expect_output "all sizes passed"
  fi
  if [ ${#small[@]} -gt 0 ]; then
    expect_status 0 -- "$BUILD/$prog" --within "$within_small" "${small[@]}"
    echo "$OUTPUT"
    expect_output "all sizes passed"
  fi
}

transpose_problem() { local rows=${1%x*} cols=${1#*x}; echo "M=$cols,N=$rows"; }
matmul_problem() { local m n k; IFS=x read -r m n k <<< "$1"; echo "K=$k,M=$m,N=$n"; }
vecadd_problem() { echo "n=$1"; }

for space in ${CUTUNE_LAUNCHER_SPACES:-transpose matmul vecadd}; do
  case $space in
    transpose) against_cutune transpose transpose_example transpose_problem 8192x8192 4096x4096 1000x3002 ;;
    matmul) against_cutune matmul sgemm_example matmul_problem 4096x4096x4096 1024x8192x2048 1100x1284x1060 1000x1003x999 ;;
    vecadd) against_cutune vecadd vecadd_example vecadd_problem 268435456 16777216 1048576 16777219 ;;
    *) fail "unknown space '$space' in CUTUNE_LAUNCHER_SPACES" ;;
  esac
done
finish
