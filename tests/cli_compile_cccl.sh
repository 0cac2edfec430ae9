#!/usr/bin/env bash
# CUB under NVRTC, as a Kernel Tuner example uses it (expdist.cu: #include <cub/cub.cuh>):
# - CUDA 13 keeps CUB in <toolkit>/include/cccl, which cutune passes after the space's own -I
#   folders (nvcc's order), so a block-level header is found at all;
# - the umbrella header's host code fails the compile with a hint that says what to do;
# - a relative -I in the space's options is found beside the space file, from any working
#   directory, and shadows the toolkit's header; one found nowhere is an error naming the folder;
# - through the fake driver (FAKE_CUDA_ANY_KERNEL: the kernel itself does nothing), the space's
#   scalars, inout, parameter-sized zeroed output and reduce check run for every configuration.
. "$(dirname "$0")/lib_cli.sh"
set -e
cccl=""
for root in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  [ -n "$root" ] && [ -f "$root/include/cccl/cub/block/block_reduce.cuh" ] && cccl=1 && break
done
[ -n "$cccl" ] || { echo "skipped: no toolkit with include/cccl (CUDA 13's CUB) here"; exit 77; }
SP="$SRC/tests/spaces/cccl/cub_sum.lua"
cd "$TMPROOT" # not the space's folder: -Iinc is found beside the space file

# the umbrella header: the reference does not compile, and the message says why and what to do
INC="" expect_status 1 -- "$BIN" run --compile-only --jobs 2 --no-progress "$SP"
expect_output "not allowed in JIT mode" "umbrella"
expect_output "NVRTC compiles device code only" "the hint"
expect_output "<cub/block/block_reduce.cuh>" "the hint's header"

# shadowed by the folder beside the space: every configuration compiles, CUB from the toolkit
INC="inc" expect_status 0 -- "$BIN" run --compile-only --jobs 2 --no-progress "$SP"
expect_output "3 configurations for sm_90" "shadowed"
expect_output "3 compiled, 0 from the cache, 0 failed" "shadowed"

# a folder found nowhere: an error at load, naming it and where cutune looked
INC="nosuch" expect_status 1 -- "$BIN" space "$SP"
expect_output "cub_sum.lua:6: options[1]: include folder 'nosuch' not found (looked in " "missing -I"
expect_output "tests/spaces/cccl/nosuch" "missing -I: the space's folder"

# through the fake driver: setup, launches and checks of all three configurations
use_fake_cuda
INC="inc" FAKE_CUDA_ANY_KERNEL=1 expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/r" "$SP"
expect_output "3 measured (0 failed)" "fake run"
n=$(grep -c '"status":"ok"' "$TMPROOT/r/Fake_H200/cub_sum.jsonl" || true)
[ "$n" -eq 3 ] && ok || fail "$n ok records (wanted 3)"
# the same space from the repository's root, by a relative path: its -Iinc is found at another
# path, but the records answer (the options hash takes an include folder by its flag; what the
# folder holds is in the template hash)
(cd "$SRC" && INC="inc" FAKE_CUDA_ANY_KERNEL=1 "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/r" \
  tests/spaces/cccl/cub_sum.lua) > "$TMPROOT/rel.txt" 2>&1 && ok || fail "the run from the root failed"
grep -q "0 measured (0 failed), 3 answered from the store" "$TMPROOT/rel.txt" && ok ||
  { fail "a run from another directory measured again"; tail -5 "$TMPROOT/rel.txt" >&2; }
# without the hook the fake knows no such kernel: the run stops at the reference, saying so
INC="inc" expect_status 1 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/r2" "$SP"
expect_output "not found in its module" "fake without FAKE_CUDA_ANY_KERNEL"
finish
