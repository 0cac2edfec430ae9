#!/bin/bash
# build_nvcc.sh: the example programs of the tuned kernels with plain nvcc, no CMake — the same
# translation units as cmake/CutuneKernels.cmake generates (per space, one per "cutune-config"
# line of its header, each defining its parameters, renaming the kernel and including the
# template; lines with the same values share one; a table of their kernels), plus
# kernels/<space>_launch.cu and the example program:
# transpose_example, sgemm_example (matmul), vecadd_example and hgemm_example (hgemm).
#   kernels/build_nvcc.sh ARCH OUTDIR [TRANSPOSE_HEADER]    e.g. kernels/build_nvcc.sh 90 build-nvcc
# ARCH is one architecture or several, comma-separated ("80,90"): sm_XY code for each. The hgemm
# space builds 90 as 90a (its wgmma configurations need sm_90a's own instructions; sm_90a code
# runs on every compute capability 9.0 GPU), and its other targets get the launcher's mma.sync
# fallback. The headers are results/<space>.h (the transpose's may be given; $CUTUNE_HEADER_DIR
# replaces results/ for the others). $CUTUNE_SPACES limits the programs built (default
# "transpose matmul vecadd", and hgemm where results/hgemm.h exists); CUTUNE_GEN_ONLY=1 writes
# the generated sources and stops before nvcc.
# CUTUNE_UNITS=nvrtc (the default): each configuration's device code is compiled the way
# `cutune run` compiled it when it was measured (NVRTC, kernels/nvrtc_cubin.c: the same compiler
# and options), one cubin per architecture of ARCH, in one fatbinary embedded in its unit and
# loaded at first use with cudaLibraryLoadData (the CUDA runtime, no cutune; the driver takes the
# cubin of the device's architecture); a device of none of them gets a null kernel (the
# launchers' error). CUTUNE_UNITS=nvcc compiles the template with nvcc instead, whose code differs
# from NVRTC's (docs/HEADER.md, "The kernels a build ships"). The NVRTC sources, cubins and ptxas
# reports are in $out/nvrtc/SPACE/ (unit_ID.cu, cubin_ID_ARCH.cubin, ptxas_ID.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: kernels/build_nvcc.sh ARCH OUTDIR [TRANSPOSE_HEADER]"
arch=${1:?$usage}
case ${CUTUNE_UNITS:-nvrtc} in nvrtc | nvcc) ;; *) echo "build_nvcc.sh: CUTUNE_UNITS is nvrtc or nvcc, not '$CUTUNE_UNITS'" >&2; exit 2 ;; esac
out=${2:?$usage}
transpose_header=${3:-results/transpose.h}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}

# gen SPACE HEADER: writes $out/gen/SPACE/{config_ID.cu,kernels.cu}
gen() {
  local space=$1 header=$2 g="$out/gen/$1" id defs d cases=""
  mkdir -p "$g"
  rm -f "$g"/*.cu
  local table="$g/kernels.cu"
  : > "$table"
  local -A built=()  # the -D values of a configuration already built -> its kernel
  while read -r id defs; do
    local f="$g/config_$id.cu" fn="cutune_${space}_kernel_$id"
    # configurations that differ only in runtime parameters (which the lines leave out) have
    # the same line: one build, one kernel for all of them
    if [ -n "${built[$defs]:-}" ]; then
      cases="$cases    case $id: return ${built[$defs]}_ptr();\n"
      continue
    fi
    built[$defs]=$fn
    : > "$f"
    if [ "${CUTUNE_UNITS:-nvrtc}" = nvrtc ]; then
      nvrtc_unit "$space" "$id" "$fn" "$f" $defs
    else
      for d in $defs; do echo "#define ${d%%=*} ${d#*=}" >> "$f"; done
      printf '#define %s %s\n#include "%s/templates/%s.cu"\n#undef %s\n' "$space" "$fn" "$PWD" "$space" "$space" >> "$f"
      printf 'extern "C" const void *%s_ptr(void) { return (const void *)&%s; }\n' "$fn" "$fn" >> "$f"
    fi
    echo "extern \"C\" const void *${fn}_ptr(void);" >> "$table"
    cases="$cases    case $id: return ${fn}_ptr();\n"
  done < <(sed -n 's/^ \* cutune-config //p' "$header")
  printf 'extern "C" const void *cutune_%s_kernel(int c) {\n  switch (c) {\n%b    default: return 0;\n  }\n}\n' \
    "$space" "$cases" >> "$table"
}

# CUTUNE_UNITS=nvrtc: unit F of configuration ID (function FN): the template with the
# configuration's values (#define, as the tuner's -D) compiled by NVRTC for each architecture of
# ARCH, the cubins in one fatbinary, and the loader of its kernel
nvrtc_tool() {
  local t="$out/nvrtc_cubin"
  [ -x "$t" ] && [ "$t" -nt kernels/nvrtc_cubin.c ] && return 0
  mkdir -p "$out"
  "$NVCC" -O2 -o "$t" kernels/nvrtc_cubin.c -lnvrtc || { echo "build_nvcc.sh: building $t failed" >&2; exit 1; }
}
nvrtc_unit() { # SPACE ID FN F DEFS...
  local space=$1 id=$2 fn=$3 f=$4 a src="$out/nvrtc/$1/unit_$2.cu"
  shift 4
  nvrtc_tool
  mkdir -p "$out/nvrtc/$space"
  : > "$src"
  for d in "$@"; do echo "#define ${d%%=*} ${d#*=}" >> "$src"; done
  printf '#include "%s/templates/%s.cu"\n' "$PWD" "$space" >> "$src"
  : > "$out/nvrtc/$space/ptxas_$id.txt"
  local images=()
  for a in ${arch//,/ }; do
    [ "$space" = hgemm ] && [ "$a" = 90 ] && a=90a
    "$out/nvrtc_cubin" "$a" "$src" "$out/nvrtc/$space/cubin_${id}_$a.cubin" >> "$out/nvrtc/$space/ptxas_$id.txt" ||
      { echo "build_nvcc.sh: NVRTC failed on configuration $id of $space for sm_$a" >&2; exit 1; }
    images+=("--image3=kind=elf,sm=$a,file=$out/nvrtc/$space/cubin_${id}_$a.cubin")
  done
  # one fatbinary of the cubins: the driver loads the one of the device's architecture
  "$(dirname "$(command -v "$NVCC")")/fatbinary" -64 --create="$out/nvrtc/$space/unit_$id.fatbin" "${images[@]}" ||
    { echo "build_nvcc.sh: fatbinary failed on configuration $id of $space" >&2; exit 1; }
  "$out/nvrtc_cubin" --embed "$fn" "$space" "$out/nvrtc/$space/unit_$id.fatbin" "$f" || exit 1
}

# -gencode for each architecture of ARCH (sm code, and PTX for the plain ones as -arch=sm_XY gives)
targets() { # SPACE
  local a
  for a in ${arch//,/ }; do
    [ "$1" = hgemm ] && [ "$a" = 90 ] && a=90a
    case $a in
      *a|*f) printf ' -gencode arch=compute_%s,code=sm_%s' "$a" "$a" ;;
      *) printf ' -gencode arch=compute_%s,code=[sm_%s,compute_%s]' "$a" "$a" "$a" ;;
    esac
  done
}

default_spaces="transpose matmul vecadd"
[ -f "${CUTUNE_HEADER_DIR:-results}/hgemm.h" ] && default_spaces="$default_spaces hgemm"
for space in ${CUTUNE_SPACES:-$default_spaces}; do
  case $space in
    transpose) header=$transpose_header prog=transpose_example main=kernels/example/main.cu ;;
    matmul) header=${CUTUNE_HEADER_DIR:-results}/matmul.h prog=sgemm_example main=kernels/example/sgemm_example.cu ;;
    vecadd) header=${CUTUNE_HEADER_DIR:-results}/vecadd.h prog=vecadd_example main=kernels/example/vecadd_example.cu ;;
    hgemm) header=${CUTUNE_HEADER_DIR:-results}/hgemm.h prog=hgemm_example main=kernels/example/hgemm_example.cu ;;
    *) echo "build_nvcc.sh: unknown space '$space' (transpose, matmul, vecadd, hgemm)" >&2; exit 2 ;;
  esac
  gen "$space" "$header"
  if [ -n "${CUTUNE_GEN_ONLY:-}" ]; then echo "$out/gen/$space"; continue; fi
  # shellcheck disable=SC2046
  "$NVCC" -O3 $(targets "$space") -I "$(dirname "$header")" -I kernels -o "$out/$prog" \
    "$out/gen/$space"/*.cu "kernels/${space}_launch.cu" "$main"
  echo "$out/$prog"
done
