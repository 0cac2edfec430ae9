#!/bin/bash
# cli_kernels_example: a user's outside CMake project (kernels/example) builds and links the
# tuned transpose (and the SGEMM and vector add, whose own checks are cli_kernels_launchers) from
# the committed headers through cmake/CutuneKernels.cmake (the units by NVRTC, the default; nvcc's
# with CUTUNE_UNITS=nvcc), for
# one architecture (no GPU needed: the program is built, not run); the committed header is the
# one `cutune header` writes from results/ today (apart from its regenerate line).
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
NVCC=${CUTUNE_NVCC:-$(command -v nvcc || true)}
[ -n "$NVCC" ] && [ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }

expect_status 0 -- "$BIN" header lua/transpose_space.lua -o "$TMPROOT/transpose.h"
if diff <(sed 3d results/transpose.h) <(sed 3d "$TMPROOT/transpose.h") > "$TMPROOT/diff"; then ok
else fail "results/transpose.h is not what 'cutune header lua/transpose_space.lua' writes now"; head -20 "$TMPROOT/diff" >&2; fi

expect_status 0 -- cmake -S kernels/example -B "$TMPROOT/build" -DCUTUNE_DIR="$SRC" -DCUTUNE_ARCHS=90 \
  -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_BUILD_TYPE=Release
expect_status 0 -- cmake --build "$TMPROOT/build" -j2
for prog in transpose_example sgemm_example vecadd_example; do
  if [ -x "$TMPROOT/build/$prog" ]; then ok; else fail "no $prog built"; fi
done
# one translation unit per distinct line of -D values, each renaming the kernel (configurations
# that differ only in runtime parameters, ORDER for the transpose, have the same line: one unit)
n=$(sed -n 's/^ \* cutune-config [0-9]* //p' results/transpose.h | sort -u | wc -l)
m=$(ls "$TMPROOT/build/cutune_transpose_kernels"/config_*.cu | wc -l)
if [ "$n" -eq "$m" ] && [ "$n" -gt 0 ]; then ok; else fail "$m generated units for $n distinct shipped configurations"; fi
# the default units (UNITS nvrtc): the template compiled by NVRTC with the configuration's values,
# embedded as a fatbinary, with ptxas' report beside it
u="$TMPROOT/build/cutune_transpose_kernels"
grep -q "cudaLibraryLoadData" "$u/config_0.cu" && grep -q 'cudaLibraryGetKernel(&k, lib, "transpose")' "$u/config_0.cu" && ok ||
  fail "config_0.cu does not load its fatbinary"
grep -q "^#define TILE " "$u/nvrtc_0.cu" && grep -q "Used [0-9]* registers" "$u/config_0.cu.ptxas.txt" && ok ||
  fail "no NVRTC source or ptxas report for configuration 0: $(ls "$u")"
[ "$(grep -c "Used [0-9]* registers" "$u/config_0.cu.ptxas.txt")" -eq 1 ] && ok || fail "one architecture, one report"
# CUTUNE_UNITS=nvcc (or UNITS nvcc): nvcc's units, which rename the kernel and include the template
expect_status 0 -- env CUTUNE_UNITS=nvcc cmake -S kernels/example -B "$TMPROOT/nvcc" -DCUTUNE_DIR="$SRC" -DCUTUNE_ARCHS=90 \
  -DCMAKE_CUDA_COMPILER="$NVCC"
if grep -q "#define transpose cutune_transpose_kernel_0" "$TMPROOT/nvcc/cutune_transpose_kernels/config_0.cu"; then ok; else fail "config_0.cu does not rename the kernel"; fi
expect_status 1 -- env CUTUNE_UNITS=gcc cmake -S kernels/example -B "$TMPROOT/bad" -DCUTUNE_DIR="$SRC" -DCMAKE_CUDA_COMPILER="$NVCC"
expect_output "UNITS is nvrtc or nvcc, not 'gcc'"
# each library has every kernel and the dispatcher
for lib in transpose:cutune_transpose matmul:cutune_sgemm vecadd:cutune_vecadd; do
  sp=${lib%%:*} api=${lib#*:}
  nm -C "$TMPROOT/build/lib${sp}_kernels.a" > "$TMPROOT/nm" 2>/dev/null || true
  for s in $api ${api}_describe ${api}_why cutune_${sp}_kernel cutune_${sp}_kernel_0_ptr; do
    if grep -qE " T $s(\(|$)" "$TMPROOT/nm"; then ok; else fail "lib${sp}_kernels.a lacks $s"; fi
  done
done
# kernels/ itself (the library for add_subdirectory) configures on its own
expect_status 0 -- cmake -S kernels -B "$TMPROOT/kbuild" -DCMAKE_CUDA_COMPILER="$NVCC"
for t in cutune_transpose cutune_matmul cutune_vecadd; do
  if [ -d "$TMPROOT/kbuild/cutune_$t" ]; then ok; else fail "kernels/ has no $t target"; fi
done
# where no GPU exists the program says so and exits 77 (skipped, not failed)
set +e; "$TMPROOT/build/transpose_example" > "$TMPROOT/run.txt" 2>&1; rc=$?; set -e
if [ $rc -eq 77 ] || [ $rc -eq 0 ]; then ok; else fail "transpose_example exited $rc"; cat "$TMPROOT/run.txt" >&2; fi
finish
