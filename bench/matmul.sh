#!/usr/bin/env bash
# matmul.sh: the SGEMM benchmark on the GPU machine, side by side in one process:
#   the best tuned matmul (from the cutune store) vs cuBLAS SGEMM (CUBLAS_DEFAULT_MATH and
#   CUBLAS_PEDANTIC_MATH, strict FP32, no TF32) vs the seed's 16x16 shared-tile kernel, at
#   4096^2 (the judged size) and 2048^2, 8192^2 (with the 4096^2 winner's configuration).
#
# Usage: bench/matmul.sh [--sizes 4096,2048,8192] [--reps 20]
# Environment: RESULTS (default results), OUT (default build/bench), NVCC, ARCH (default sm_90).
# Output: $OUT/matmul_bench.txt (the table) and $OUT/matmul_bench.csv.
set -euo pipefail
die() { echo "matmul.sh: $*" >&2; exit 1; }
cd "$(dirname "$0")/.."
RESULTS=${RESULTS:-results}
OUT=${OUT:-build/bench}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
PROBLEM="K=4096,M=4096,N=4096"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes|--reps) [ $# -ge 2 ] || die "$1 needs a value"; args+=("$1" "$2"); shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
mkdir -p "$OUT"
CUDA_LIB=$(cd "$(dirname "$(command -v "$NVCC")")/.." && pwd)/lib64
w=$(python3 bench/best_config.py "$RESULTS" matmul "$PROBLEM") || die "no tuned matmul in $RESULTS"
IFS=$'\t' read -r flags config t gf <<<"$w"
echo "== cutune's best at $PROBLEM: $config ($t ms, $gf GFLOP/s in cutune's run)"
# shellcheck disable=SC2086
"$NVCC" -O3 -arch="$ARCH" $flags -o "$OUT/matmul_bench" bench/matmul_bench.cu -lcublas \
  -Xlinker -rpath -Xlinker "$CUDA_LIB" || die "building matmul_bench failed"
"$OUT/matmul_bench" "${args[@]}" --config "$config" --csv "$OUT/matmul_bench.csv" | tee "$OUT/matmul_bench.txt"
