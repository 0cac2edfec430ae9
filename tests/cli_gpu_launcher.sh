#!/bin/bash
# cli_gpu_launcher (GPU): the production launcher built by nvcc from the committed header
# (kernels/example, for this device's architecture) transposes correctly at every size of the
# space, and its time is within 2 % of what cutune measures for the same configuration in the
# same call (lua/transpose_pinned.lua: the space restricted to the header's configurations,
# into a fresh store). Set CUTUNE_LAUNCHER_WITHIN to change the 0.02; CUTUNE_LAUNCHER_NVCC=1
# builds with plain nvcc (kernels/build_nvcc.sh) even where CMake exists.
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
gpu_or_skip
NVCC=${CUTUNE_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
within=${CUTUNE_LAUNCHER_WITHIN:-0.02}
arch=$("$BIN" devices | sed -nE 's/^0: .*\(sm_([0-9]+),.*/\1/p' | head -1)
[ -n "$arch" ] || { fail "no architecture from cutune devices"; finish; exit 1; }

EX="$TMPROOT/build/transpose_example"
if [ -z "${CUTUNE_LAUNCHER_NVCC:-}" ] && command -v cmake >/dev/null 2>&1; then
  expect_status 0 -- cmake -S kernels/example -B "$TMPROOT/build" -DCUTUNE_DIR="$SRC" -DCUTUNE_ARCHS="$arch" \
    -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_BUILD_TYPE=Release
  expect_status 0 -- cmake --build "$TMPROOT/build" -j4
else # no CMake on this machine: plain nvcc, the same units as cmake/CutuneKernels.cmake
  expect_status 0 -- env NVCC="$NVCC" bash kernels/build_nvcc.sh "$arch" "$TMPROOT/build"
fi

# which configuration the launcher picks per size, and that its output is right
expect_status 0 -- "$EX"
echo "$OUTPUT"
expect_output "all sizes passed"
sizes=(8192x8192 4096x4096 1000x3002)
pins=""
declare -A cfg
for s in "${sizes[@]}"; do
  c=$(printf '%s\n' "$OUTPUT" | sed -nE "s/^size $s: config [0-9]+ ([^ ]+) .*/\1/p")
  [ -n "$c" ] || { fail "no configuration printed for $s"; continue; }
  cfg[$s]=$c
  pins="$pins;$c"
done

# cutune measures the same configurations now
expect_status 0 -- env CUTUNE_PIN="${pins#;}" "$BIN" run --no-progress --results "$TMPROOT/results" lua/transpose_pinned.lua
store=$(ls "$TMPROOT"/results/*/transpose.jsonl)
args=()
for s in "${sizes[@]}"; do
  rows=${s%x*} cols=${s#*x}
  t=$(grep -F "\"config\":\"${cfg[$s]}\"" "$store" | grep -F "\"problem\":\"M=$cols,N=$rows\"" |
      sed -nE 's/.*"t_median":([0-9.eE+-]+).*/\1/p' | tail -1)
  [ -n "$t" ] || { fail "cutune recorded nothing for ${cfg[$s]} at $s"; continue; }
  echo "cutune: $s ${cfg[$s]} $t ms"
  args+=("$s=$t")
done
expect_status 0 -- "$EX" --within "$within" "${args[@]}"
echo "$OUTPUT"
expect_output "all sizes passed"
finish
