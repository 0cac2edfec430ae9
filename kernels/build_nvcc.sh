#!/bin/bash
# build_nvcc.sh: the tuned transpose example with plain nvcc, no CMake — the same translation
# units as cmake/CutuneKernels.cmake generates (one per "cutune-config" line of the header,
# each defining its parameters, renaming the kernel and including the template; a table of
# their kernels), plus kernels/transpose_launch.cu and kernels/example/main.cu.
#   kernels/build_nvcc.sh ARCH OUTDIR [HEADER]     e.g. kernels/build_nvcc.sh 90 build-nvcc
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:?usage: kernels/build_nvcc.sh ARCH OUTDIR [HEADER]}
out=${2:?usage: kernels/build_nvcc.sh ARCH OUTDIR [HEADER]}
header=${3:-results/transpose.h}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
g="$out/gen"
mkdir -p "$g"
table="$g/kernels.cu"
: > "$table"
cases=""
while read -r id defs; do
  f="$g/config_$id.cu"
  : > "$f"
  for d in $defs; do echo "#define ${d%%=*} ${d#*=}" >> "$f"; done
  printf '#define transpose cutune_transpose_kernel_%s\n#include "%s/templates/transpose.cu"\n#undef transpose\n' "$id" "$PWD" >> "$f"
  printf 'extern "C" const void *cutune_transpose_kernel_%s_ptr(void) { return (const void *)&cutune_transpose_kernel_%s; }\n' "$id" "$id" >> "$f"
  echo "extern \"C\" const void *cutune_transpose_kernel_${id}_ptr(void);" >> "$table"
  cases="$cases    case $id: return cutune_transpose_kernel_${id}_ptr();\n"
done < <(sed -n 's/^ \* cutune-config //p' "$header")
printf 'extern "C" const void *cutune_transpose_kernel(int c) {\n  switch (c) {\n%b    default: return 0;\n  }\n}\n' "$cases" >> "$table"
"$NVCC" -O3 -arch=sm_"$arch" -I "$(dirname "$header")" -I kernels -o "$out/transpose_example" \
  "$g"/*.cu kernels/transpose_launch.cu kernels/example/main.cu
echo "$out/transpose_example"
