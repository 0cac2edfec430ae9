#!/usr/bin/env bash
# The spaces of examples/kernels/ (softmax, histogram, jacobi2d, scan: kernels of their own,
# written from the docs alone): each loads with its count of configurations, and a sample that
# covers every value of every parameter compiles for sm_90 without a cache, none failed and none
# invalid. Their results are measured on a GPU (docs/PERFORMANCE.md); here, that they stay
# loadable and compilable as cutune changes.
. "$(dirname "$0")/lib_cli.sh"
set -e
declare -A want=([softmax]=72 [histogram]=120 [jacobi2d]=64 [scan]=19)
for e in softmax histogram jacobi2d scan; do
  expect_status 0 -- "$BIN" space "examples/kernels/$e.lua"
  expect_output "${want[$e]} valid configurations" "$e counted"
  expect_status 0 -- "$BIN" run --compile-only --arch sm_90 --sample 1 --jobs 2 --no-cache --no-progress \
    "examples/kernels/$e.lua"
  expect_output " 0 failed" "$e compiles"
  if printf '%s' "$OUTPUT" | grep -q "invalid"; then fail "$e: an invalid configuration in the sample"; else ok; fi
done
finish
