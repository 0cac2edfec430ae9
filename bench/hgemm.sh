#!/usr/bin/env bash
# hgemm.sh: the BF16 GEMM benchmark on the GPU machine, side by side in one process: the shipped
# launcher cutune_hgemm (kernels/hgemm_launch.cu and one unit per configuration of the header, built
# here with nvcc as kernels/build_nvcc.sh generates them: sm_90a for the wgmma entries) against
# cublasGemmEx (BF16 in, FP32 C, CUBLAS_COMPUTE_32F) over the SGEMM shape list of the "every
# shape" issue (4096^3, 8192^3, 6144^3, 2048^3, 3000^3, 512^3, 1000x1003x999, 1100x1284x1060,
# 1024x8192x2048, 8192x8192x256, 16384x128x4096, 256x256x16384), every output checked against a
# float64 reference first (bench/hgemm_bench.cu). Ends with the geometric mean of cutune/cuBLAS.
#
# Usage: bench/hgemm.sh [--shapes MxNxK,...] [--reps 20]
# Environment: HEADER (default results/hgemm.h), OUT (default build/bench), NVCC, ARCH (default
# 90: built as 90a), JOBS (parallel nvcc, default nproc). The build needs no GPU: BUILD_ONLY=1
# builds $OUT/hgemm_launch_bench and stops; SKIP_BUILD=1 times the one built before.
# Output: $OUT/hgemm_bench.txt (the table) and $OUT/hgemm_bench.csv.
set -euo pipefail
die() { echo "hgemm.sh: $*" >&2; exit 1; }
cd "$(dirname "$0")/.."
HEADER=${HEADER:-results/hgemm.h}
OUT=${OUT:-build/bench}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-90}
JOBS=${JOBS:-$(nproc)}
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --shapes|--reps) [ $# -ge 2 ] || die "$1 needs a value"; args+=("$1" "$2"); shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
mkdir -p "$OUT"
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  [ -x "$OUT/hgemm_launch_bench" ] || die "SKIP_BUILD=1 but $OUT/hgemm_launch_bench is not built (BUILD_ONLY=1 builds it)"
  echo "== timing the launcher built before ($(cat "$OUT/hgemm_built_from" 2>/dev/null || echo 'header unknown'))"
  "$OUT/hgemm_launch_bench" "${args[@]}" --csv "$OUT/hgemm_bench.csv" | tee "$OUT/hgemm_bench.txt"
  exit "${PIPESTATUS[0]}"
fi
[ -f "$HEADER" ] || die "no header $HEADER (cutune header lua/hgemm_space.lua -o $HEADER)"
CUDA_LIB=$(cd "$(dirname "$(command -v "$NVCC")")/.." && pwd)/lib64
gen=$(CUTUNE_GEN_ONLY=1 CUTUNE_SPACES=hgemm CUTUNE_HEADER_DIR="$(dirname "$HEADER")" bash kernels/build_nvcc.sh "$ARCH" "$OUT/hgemm")
targets=$(for a in ${ARCH//,/ }; do [ "$a" = 90 ] && a=90a; printf ' -gencode arch=compute_%s,code=sm_%s' "$a" "$a"; done)
echo "== building the launcher from $HEADER ($(ls "$gen"/config_*.cu | wc -l) units, $targets)"
inc="-I $(dirname "$HEADER") -I kernels -I bench"
# shellcheck disable=SC2086
ls "$gen"/*.cu kernels/hgemm_launch.cu | xargs -P "$JOBS" -I{} sh -c \
  "'$NVCC' -O3 -std=c++17 $targets $inc -c -o '$OUT/hgemm/'\$(basename {}).o {}" || die "building the units failed"
# shellcheck disable=SC2086
"$NVCC" -O3 -std=c++17 $targets $inc -DHGB_LAUNCHER -o "$OUT/hgemm_launch_bench" bench/hgemm_bench.cu \
  "$OUT/hgemm"/*.o -lcublas -Xlinker -rpath -Xlinker "$CUDA_LIB" || die "building hgemm_bench failed"
echo "$HEADER ($(md5sum < "$HEADER" | cut -c1-12)), sm_$ARCH" > "$OUT/hgemm_built_from"
[ "${BUILD_ONLY:-0}" = 1 ] && { echo "== built $OUT/hgemm_launch_bench"; exit 0; }
"$OUT/hgemm_launch_bench" "${args[@]}" --csv "$OUT/hgemm_bench.csv" | tee "$OUT/hgemm_bench.txt"
