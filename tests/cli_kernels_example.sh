#!/bin/bash
# cli_kernels_example: a user's outside CMake project (kernels/example) builds and links the
# tuned transpose from the committed header with nvcc through cmake/CutuneKernels.cmake, for
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
if [ -x "$TMPROOT/build/transpose_example" ]; then ok; else fail "no transpose_example built"; fi
# one translation unit per shipped configuration, each renaming the kernel
n=$(grep -c "^ \* cutune-config" results/transpose.h)
m=$(ls "$TMPROOT/build/cutune_transpose_kernels"/config_*.cu | wc -l)
if [ "$n" -eq "$m" ] && [ "$n" -gt 0 ]; then ok; else fail "$m generated units for $n shipped configurations"; fi
if grep -q "#define transpose cutune_transpose_kernel_0" "$TMPROOT/build/cutune_transpose_kernels/config_0.cu"; then ok; else fail "config_0.cu does not rename the kernel"; fi
# the library has every kernel and the dispatcher
nm -C "$TMPROOT/build/libtranspose_kernels.a" > "$TMPROOT/nm" 2>/dev/null || true
for s in cutune_transpose cutune_transpose_kernel cutune_transpose_kernel_0; do
  if grep -qE " T $s(\(|$)" "$TMPROOT/nm"; then ok; else fail "libtranspose_kernels.a lacks $s"; fi
done
# kernels/ itself (the library for add_subdirectory) configures on its own
expect_status 0 -- cmake -S kernels -B "$TMPROOT/kbuild" -DCMAKE_CUDA_COMPILER="$NVCC"
if grep -q "cutune_transpose" "$TMPROOT/kbuild/Makefile" 2>/dev/null || [ -d "$TMPROOT/kbuild/cutune_cutune_transpose" ]; then ok; else fail "kernels/ has no cutune_transpose target"; fi
# where no GPU exists the program says so and exits 77 (skipped, not failed)
set +e; "$TMPROOT/build/transpose_example" > "$TMPROOT/run.txt" 2>&1; rc=$?; set -e
if [ $rc -eq 77 ] || [ $rc -eq 0 ]; then ok; else fail "transpose_example exited $rc"; cat "$TMPROOT/run.txt" >&2; fi
finish
