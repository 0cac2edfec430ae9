#!/usr/bin/env bash
# vecadd.sh: the vector-add benchmark on the GPU machine, side by side in one process: the best
# tuned vecadd (from the cutune store, problem n=268435456) vs a float4 copy kernel vs cudaMemcpy
# D2D vs one element per thread, at 2^28 and 2^24 elements.
# Usage: bench/vecadd.sh [--sizes 268435456,16777216] [--reps 30]
# Environment: RESULTS (default results), OUT (default build/bench), NVCC, ARCH (default sm_90).
# Output: $OUT/vecadd_bench.txt and $OUT/vecadd_bench.csv.
set -euo pipefail
die() { echo "vecadd.sh: $*" >&2; exit 1; }
cd "$(dirname "$0")/.."
RESULTS=${RESULTS:-results}
OUT=${OUT:-build/bench}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
mkdir -p "$OUT"
w=$(python3 bench/best_config.py "$RESULTS" vecadd "n=268435456") || die "no tuned vecadd in $RESULTS"
IFS=$'\t' read -r flags config t gf <<<"$w"
echo "== cutune's best at n=2^28: $config ($t ms in cutune's run)"
# shellcheck disable=SC2086
"$NVCC" -O3 -arch="$ARCH" $flags -o "$OUT/vecadd_bench" bench/vecadd_bench.cu || die "building vecadd_bench failed"
"$OUT/vecadd_bench" "$@" --config "$config" --csv "$OUT/vecadd_bench.csv" | tee "$OUT/vecadd_bench.txt"
