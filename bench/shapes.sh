#!/usr/bin/env bash
# shapes.sh: the shipped SGEMM, transpose and vector add — built with plain nvcc from the
# committed headers (results/matmul.h, transpose.h, vecadd.h: the launchers of kernels/ and the
# units kernels/build_nvcc.sh generates) — against cuBLAS strict FP32 and cudaMemcpy, side by
# side in one process (bench/shapes_bench.cu: median of 20 launches after warm-up, every output
# checked), over shape list files:
#
#   bench/shapes.sh [LIST...]     default: bench/shapes.txt bench/shapes_unseen.txt
#
# bench/shapes.txt: the 12 SGEMM shapes of issue 20, its transpose and vector-add sizes, and
# shapes of real workloads (transformer projections, batched small, tall and skinny, large K,
# odd sizes); bench/shapes_unseen.txt: sizes in no tuned list of the project, which judge the
# header's rule for untuned shapes. Prints per shape (ratio = vendor time / cutune time, the
# configuration and why the header chose it), then per list and kind the geometric mean, the
# minimum and how many are at or above the vendor.
#
# Environment: HEADERS (folder of matmul.h, transpose.h, vecadd.h; default results), ARCH (default:
# the device's compute capability from nvidia-smi, else 90), NVCC, OUT (where shapes.txt and
# shapes.csv go; default gpu-out), W (build folder; default $TMPDIR/cutune-shapes), REPS (20),
# QUEUE (1: each launch between its own events; N: N launches back to back per sample, so that
# host time between launches is out of the figure; shapes_bench --queue), CUTUNE_UNITS (nvrtc:
# the kernels compiled as the tuner compiled them, the default of kernels/build_nvcc.sh; nvcc: nvcc's).
# GPU time: the build (about a minute on 16 cores, the SGEMM kernels in parallel) and the timing
# (about 40 s for the default lists). The build needs no GPU: BUILD_ONLY=1 builds $W/shapes_bench
# and stops (with ARCH set, on a machine without one), SKIP_BUILD=1 times with the $W/shapes_bench
# already there (built from the same headers: its line says which).
# Exit status: 0, 1 a check failed (a wrong result), 2 no binary to time, 77 no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
HEADERS=${HEADERS:-results}
OUT=${OUT:-gpu-out}
W=${W:-${TMPDIR:-/tmp}/cutune-shapes}
REPS=${REPS:-20}
QUEUE=${QUEUE:-1}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ -z "${ARCH:-}" ]; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .' || true)
  ARCH=${cc:-90}
fi
lists=("$@")
[ ${#lists[@]} -gt 0 ] || lists=(bench/shapes.txt bench/shapes_unseen.txt)
mkdir -p "$OUT" "$W"
for h in matmul transpose vecadd; do
  [ -f "$HEADERS/$h.h" ] || { echo "shapes.sh: $HEADERS/$h.h missing" >&2; exit 2; }
done

# the generated units (one per distinct shipped configuration, as cmake/CutuneKernels.cmake
# makes them), then every unit compiled in parallel and linked with the launchers and cuBLAS
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  [ -x "$W/shapes_bench" ] || { echo "shapes.sh: SKIP_BUILD=1 but $W/shapes_bench is not built (BUILD_ONLY=1 builds it)" >&2; exit 2; }
  echo "shapes.sh: timing the $W/shapes_bench built before ($(cat "$W/built_from" 2>/dev/null || echo 'headers unknown'))"
else
t0=$(date +%s)
rm -rf "$W/gen" "$W/obj"
CUTUNE_GEN_ONLY=1 CUTUNE_HEADER_DIR="$HEADERS" NVCC="$NVCC" bash kernels/build_nvcc.sh "$ARCH" "$W" "$HEADERS/transpose.h" >/dev/null
mkdir -p "$W/obj"
units=()
for sp in matmul transpose vecadd; do
  for f in "$W/gen/$sp"/*.cu; do units+=("$f"); done
  units+=("kernels/${sp}_launch.cu")
done
units+=(bench/shapes_bench.cu)
printf '%s\n' "${units[@]}" | xargs -P "$(nproc)" -I{} sh -c \
  'o="$1/obj/$(echo "$2" | tr / _).o"; "$3" -O3 -arch=sm_"$4" -I "$5" -I kernels -I bench -c "$2" -o "$o"' _ "$W" {} "$NVCC" "$ARCH" "$HEADERS"
"$NVCC" -arch=sm_"$ARCH" -o "$W/shapes_bench" "$W"/obj/*.o -lcublas
from="sm_$ARCH from $HEADERS/{matmul,transpose,vecadd}.h ($(cat "$HEADERS"/matmul.h "$HEADERS"/transpose.h "$HEADERS"/vecadd.h | md5sum | cut -c1-12))"
echo "$from" > "$W/built_from"
echo "shapes.sh: built $W/shapes_bench for $from in $(( $(date +%s) - t0 )) s ($(ls "$W"/gen/matmul/config_*.cu | wc -l) SGEMM, $(ls "$W"/gen/transpose/config_*.cu | wc -l) transpose, $(ls "$W"/gen/vecadd/config_*.cu | wc -l) vecadd kernels)"
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
fi

set +e
"$W/shapes_bench" --reps "$REPS" --queue "$QUEUE" --csv "$OUT/shapes.csv" "${lists[@]}" | tee "$OUT/shapes.txt"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 77 ] && { echo "shapes.sh: no CUDA device"; exit 77; }
exit "$rc"
