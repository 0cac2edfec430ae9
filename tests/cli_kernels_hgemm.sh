#!/bin/bash
# cli_kernels_hgemm: the production BF16 GEMM (kernels/hgemm_launch.cu, kernels/cutune_hgemm.h)
# builds with plain nvcc (kernels/build_nvcc.sh with CUTUNE_UNITS=nvcc) from a header of `cutune header lua/hgemm_space.lua`, for sm_80 and sm_90
# at once (kernels/build_nvcc.sh 80,90: the hgemm space builds 90 as sm_90a, which its wgmma
# configurations need), one generated unit per distinct shipped configuration, and the program
# exits 77 where there is no GPU. No GPU data is needed: the header is written from a store that a
# fake-driver run makes of three real configurations (tests/fake: templates/hgemm.cu's kernels are
# no-ops there, the times a made-up model that favours big blocks and full waves, so that two
# configurations are shipped). A wgmma unit built for plain sm_90 stops with the template's
# message; CMake (cmake/CutuneKernels.cmake) configures the library for ARCHS 80 90a. Where
# cuobjdump is found, the SASS is read: HGMMA in the wgmma kernels' sm_90a code, HMMA and LDSM in
# the mma.sync ones (and the launcher's fallback), no local memory anywhere.
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
NVCC=${CUTUNE_NVCC:-$(command -v nvcc || true)}
[ -n "$NVCC" ] && [ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
use_fake_cuda

PIN=""
for c in "WG=1,BM=128,BN=256,BK=64,WM=64,WN=256,STAGES=4,SWZ=128,WS=1,WAITG=1,REGS=1,TMA=1" \
         "WG=1,BM=128,BN=128,BK=64,WM=64,WN=128,STAGES=4,SWZ=128,WS=0,WAITG=0,REGS=0,TMA=0" \
         "WG=0,BM=256,BN=128,BK=32,WM=64,WN=32,STAGES=3,SWZ=64,WS=0,WAITG=0,REGS=0,TMA=0"; do
  for s in 1 16; do PIN="$PIN${PIN:+;}$c,GROUPM=8,SPLITK=$s"; done
done
CUTUNE_PIN="$PIN" expect_status 0 -- "$BIN" run --no-progress --results "$TMPROOT/results" lua/hgemm_pinned.lua
H="$TMPROOT/hdr"
mkdir -p "$H"
expect_status 0 -- "$BIN" header lua/hgemm_space.lua "$TMPROOT/results" -o "$H/hgemm.h"
grep -q "^#define CUTUNE_HGEMM_RUNTIME_SPLITK 1" "$H/hgemm.h" && grep -q "^#define CUTUNE_HGEMM_RUNTIME_GROUPM 1" "$H/hgemm.h" &&
  ok || fail "the header does not mark GROUPM and SPLITK as runtime parameters"
n=$(sed -n 's/^ \* cutune-config [0-9]* //p' "$H/hgemm.h" | sort -u | wc -l)
[ "$n" -ge 2 ] && ok || fail "the header ships $n distinct configurations (wanted 2 or more)"
grep -q "cutune-config [0-9]* WG=1 " "$H/hgemm.h" && grep -q "cutune-config [0-9]* WG=0 " "$H/hgemm.h" && ok ||
  fail "the header does not ship both a wgmma and a mma.sync configuration"

expect_status 0 -- env NVCC="$NVCC" CUTUNE_UNITS=nvcc CUTUNE_SPACES=hgemm CUTUNE_HEADER_DIR="$H" bash kernels/build_nvcc.sh 80,90 "$TMPROOT/nv"
[ -x "$TMPROOT/nv/hgemm_example" ] && ok || fail "build_nvcc.sh built no hgemm_example"
m=$(ls "$TMPROOT/nv/gen/hgemm"/config_*.cu | wc -l)
[ "$n" -eq "$m" ] && ok || fail "$m generated units for $n distinct shipped configurations"
# where no GPU exists the program says so and exits 77 (skipped, not failed)
set +e; "$TMPROOT/nv/hgemm_example" > "$TMPROOT/run.txt" 2>&1; rc=$?; set -e
[ $rc -eq 77 ] || [ $rc -eq 0 ] && ok || { fail "hgemm_example exited $rc"; cat "$TMPROOT/run.txt" >&2; }
nm "$TMPROOT/nv/hgemm_example" > "$TMPROOT/nm" 2>/dev/null || true
for s in cutune_hgemm cutune_hgemm_describe cutune_hgemm_why_size cutune_hgemm_kernel; do
  grep -qE " T $s$" "$TMPROOT/nm" && ok || fail "hgemm_example lacks $s"
done

CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo "$(dirname "$NVCC")/cuobjdump")}
if [ -x "$CUOBJDUMP" ]; then
  CUOBJDUMP="$CUOBJDUMP" bash bench/hgemm_sass.sh "$TMPROOT/nv/hgemm_example" > "$TMPROOT/sass.txt"
  for f in "$TMPROOT"/nv/gen/hgemm/config_*.cu; do
    id=$(basename "$f" .cu); id=${id#config_}
    k=cutune_hgemm_kernel_$id
    if grep -q "^#define WG 1" "$f"; then
      awk -v k=$k '$1 == k && $2 == "sm_90a" { exit !($3 > 0) }' "$TMPROOT/sass.txt" && ok || fail "$k: no HGMMA in its sm_90a code"
    else
      awk -v k=$k '$1 == k && $2 == "sm_90a" { exit !($4 > 0 && $5 > 0) }' "$TMPROOT/sass.txt" && ok || fail "$k: no HMMA/LDSM"
    fi
  done
  awk '$1 == "cutune_hgemm_fallback" && $2 == "sm_80" { exit !($4 > 0 && $5 > 0) }' "$TMPROOT/sass.txt" && ok ||
    fail "the fallback has no HMMA/LDSM for sm_80"
  awk 'NR > 1 && $7 != 0 { bad = 1 } END { exit bad }' "$TMPROOT/sass.txt" && ok || fail "local memory in $(cat "$TMPROOT/sass.txt")"
else
  echo "cuobjdump not found (set CUOBJDUMP): the SASS is not read"
fi

# a wgmma configuration built for sm_90 without the 'a': the template's message
f=$(grep -l "^#define WG 1" "$TMPROOT"/nv/gen/hgemm/config_*.cu | head -1)
expect_status 1 -- "$NVCC" -arch=sm_90 -I "$H" -I kernels -c -o "$TMPROOT/x.o" "$f"
expect_output "WG=1 (wgmma) must be built for sm_90a" "plain sm_90"
# CMake: the library for ARCHS 80 90a configures, one unit per distinct configuration
mkdir -p "$TMPROOT/cm"
cat > "$TMPROOT/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(hg LANGUAGES CXX CUDA)
include($SRC/cmake/CutuneKernels.cmake)
cutune_add_tuned_kernels(TARGET hg SPACE hgemm HEADER $H/hgemm.h TEMPLATE $SRC/templates/hgemm.cu KERNEL hgemm
  ARCHS 80 90a SOURCES $SRC/kernels/hgemm_launch.cu)
target_include_directories(hg PUBLIC $SRC/kernels)
CM
expect_status 0 -- cmake -S "$TMPROOT/cm" -B "$TMPROOT/cmb" -DCMAKE_CUDA_COMPILER="$NVCC"
# the default units (UNITS nvrtc): one NVRTC source per distinct configuration at configure time,
# its cubins for sm_80 and sm_90a made at build time
m=$(ls "$TMPROOT/cmb/cutune_hg"/nvrtc_*.cu | wc -l)
[ "$n" -eq "$m" ] && ok || fail "CMake: $m generated units for $n distinct shipped configurations"
grep -rq -- "-DARCHS=80,90a" "$TMPROOT/cmb/CMakeFiles/hg.dir/" && ok || fail "CMake's NVRTC units are not made for 80 and 90a"
grep -q '"80;90a"\|80;90a' "$TMPROOT/cmb/CMakeCache.txt" "$TMPROOT/cmb/CMakeFiles/hg.dir/"*.make 2>/dev/null ||
  grep -rq "sm_90a" "$TMPROOT/cmb/CMakeFiles/hg.dir/" && ok || fail "CMake does not build the library for sm_90a"
finish
