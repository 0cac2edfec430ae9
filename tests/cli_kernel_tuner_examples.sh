#!/usr/bin/env bash
# Kernel Tuner's CUDA examples as cutune spaces (examples/kernel_tuner/), on their unchanged
# sources read from ../shared/kernel_tuner/examples/cuda ($CUTUNE_SHARED/kernel_tuner/...): each
# space loads through --kernel-path, counts as many configurations as Kernel Tuner's script gives
# (computed from the scripts' parameters and restrictions by tests/kt/counts.py, and fixed here as
# kernel_tuner 1.5's Searchspace counted them), and a sample compiles for sm_90 (every value of
# every parameter; convolution on cheap values, tests/kt/convolution_sample.lua). Where
# ../shared is absent, the counts of counts.py are still checked against the fixed ones and the
# rest is skipped (exit 77).
. "$(dirname "$0")/lib_cli.sh"
set -e
declare -A want=([convolution]=1867776 [matmul]=40 [pnpoly]=5456 [reduction]=2376 [stencil]=31 [vector_add]=15)
if command -v python3 >/dev/null 2>&1; then
  while read -r name n; do
    [ "${want[$name]}" = "$n" ] && ok || fail "counts.py: $name $n (Kernel Tuner: ${want[$name]})"
  done < <(python3 tests/kt/counts.py)
fi
K=${CUTUNE_SHARED:-../shared}/kernel_tuner/examples/cuda
if [ ! -f "$K/convolution.cu" ]; then
  echo "skipped: no Kernel Tuner examples in $K ($((checks - fails)) count checks passed)"
  [ "$fails" -eq 0 ] && exit 77 || finish
fi
want[reduction_both]=2376
for e in convolution matmul pnpoly reduction reduction_both stencil vector_add; do
  expect_status 0 -- "$BIN" space --kernel-path "$K" "examples/kernel_tuner/$e.lua"
  expect_output "${want[$e]} valid configurations" "$e"
done
for e in matmul pnpoly reduction reduction_both stencil vector_add; do
  expect_status 0 -- "$BIN" run --compile-only --arch sm_90 --sample 1 --jobs 2 --no-progress --kernel-path "$K" \
    "examples/kernel_tuner/$e.lua"
  expect_output " 0 failed" "$e compiles"
done
# matmul: the 64 x 64 x 8 tiles are over 48 KB of static shared memory: invalid, not failed
expect_status 0 -- "$BIN" run --compile-only --arch sm_90 --jobs 2 --no-progress --kernel-path "$K" examples/kernel_tuner/matmul.lua
expect_output "invalid (over a limit of sm_90)" "matmul's shared memory"
CUTUNE_KERNEL_PATH="$K" expect_status 0 -- "$BIN" run --compile-only --arch sm_90 --sample 1 --jobs 2 --no-progress \
  tests/kt/convolution_sample.lua
expect_output " 0 failed" "convolution compiles"
finish
