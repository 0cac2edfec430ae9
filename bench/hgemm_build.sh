#!/usr/bin/env bash
# hgemm_build.sh: bench/hgemm_bench.cu's table build, from configurations of lua/hgemm_space.lua
# read from stdin as -D flags, one per line ("-DWG=1 -DBM=128 ..."; '#' lines and anything after a
# '|' are ignored; default input bench/hgemm_configs.txt). Each configuration becomes one unit
# (templates/hgemm.cu with its values, its kernel renamed), compiled in parallel for ARCH, and the
# table of them is linked with the benchmark into OUT/hgemm_bench.
#   bench/hgemm_build.sh OUT [ARCH]      ARCH: 90a (default: wgmma and mma.sync) or 80, 86, ...
#                                        (then only the mma.sync configurations are built)
# Environment: NVCC, JOBS (parallel nvcc, default nproc), CUDA_LIB (for -rpath; default: the
# toolkit's lib64 next to nvcc).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/hgemm_build.sh OUT [ARCH]}
arch=${2:-90a}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
JOBS=${JOBS:-$(nproc)}
CUDA_LIB=${CUDA_LIB:-$(cd "$(dirname "$(command -v "$NVCC")")/.." && pwd)/lib64}
gen="$out/gen"
rm -rf "$gen" && mkdir -p "$gen"
if [ -t 0 ]; then exec < bench/hgemm_configs.txt; fi
i=0
table="$gen/table.cu"
{ echo '#include "hgemm_bench.cuh"'; } > "$table"
entries=""
while IFS= read -r line; do
  flags=${line%%|*}
  case "$flags" in \#*|"") continue ;; esac
  [ -n "${flags// /}" ] || continue
  if [ "${arch%a}" != 90 ] && [[ " $flags " == *" -DWG=1 "* ]]; then continue; fi
  f="$gen/cfg_$i.cu"
  : > "$f"
  name=""
  for d in $flags; do
    d=${d#-D}
    echo "#define ${d%%=*} ${d#*=}" >> "$f"
    name="$name${name:+ }$d"
  done
  cat >> "$f" <<CU
#define hgemm hgb_kernel_$i
#include "$PWD/templates/hgemm.cu"
#undef hgemm
#include "$PWD/bench/hgemm_bench.cuh"
extern "C" const hgb_config hgb_config_$i = {"$name", (const void *)&hgb_kernel_$i, HG_THREADS, HG_SMEM, BM, BN, BK, WG, SWZ, TMA};
CU
  echo "extern \"C\" const hgb_config hgb_config_$i;" >> "$table"
  entries="$entries &hgb_config_$i,"
  i=$((i + 1))
done
[ $i -gt 0 ] || { echo "hgemm_build.sh: no configuration read" >&2; exit 2; }
cat >> "$table" <<CU
static const hgb_config *const hgb_all[] = {$entries};
extern "C" const hgb_config *const *hgb_configs(int *n) { *n = (int)(sizeof hgb_all / sizeof hgb_all[0]); return hgb_all; }
CU
gencode="-gencode arch=compute_$arch,code=sm_$arch"
echo "hgemm_build.sh: $i configurations for sm_$arch, $JOBS at a time"
# shellcheck disable=SC2086
ls "$gen"/cfg_*.cu "$table" | xargs -P "$JOBS" -I{} sh -c \
  "'$NVCC' -O3 -std=c++17 $gencode -Xptxas -warn-spills -I bench -c -o {}.o {} 2> {}.log || { cat {}.log; exit 255; }"
# shellcheck disable=SC2086
"$NVCC" -O3 -std=c++17 $gencode -I bench -o "$out/hgemm_bench" bench/hgemm_bench.cu "$gen"/*.o -lcublas \
  -Xlinker -rpath -Xlinker "$CUDA_LIB"
cat "$gen"/*.log 2>/dev/null | grep -i "spill\|warning" || true
echo "$out/hgemm_bench"
