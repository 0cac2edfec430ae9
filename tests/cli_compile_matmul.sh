#!/usr/bin/env bash
# Without a GPU: a documented sample of the matmul space and of the vecadd space compiles for
# sm_90 and sm_80 with no failure. The matmul space (~93,000 configurations at 0.5-5 s of NVRTC
# each on a loaded 2-core machine: hours) is too large for CI: `--sample 3` compiles the cover
# (a few configurations that use every value of every parameter: 4 for this space, both load
# paths among them, STAGES=1 plain loads and cp.async pipelines) per architecture (~10-30 s of CPU
# in all). The vecadd space (480) is sampled with 16 per architecture (~5 s). The whole matmul space compiles on the GPU machine's 16 cores in
# about 45 minutes (1.2 s per configuration, measured there on 2026-12-01).
. "$(dirname "$0")/lib_cli.sh"
set -e
for arch in sm_90 sm_80; do
  expect_status 0 -- "$BIN" run --compile-only --arch $arch --no-progress -v --sample 3 --seed 3 lua/matmul_space.lua
  expect_output "of them covering every value of every parameter" "$arch matmul"
  # run --help gives the matmul space's size: the one the space has (issue 23, item 10)
  count=$(printf '%s\n' "$OUTPUT" | sed -n 's/^lua\/matmul_space.lua: \([0-9]*\) valid configurations of.*/\1/p')
  grouped=$(echo "$count" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') # 74748 -> 74,748
  if "$BIN" run --help | grep -q "lua/matmul_space.lua: $grouped configurations"; then ok
  else fail "run --help does not give the matmul space's $grouped configurations"; fi
  expect_output "configurations for $arch" "$arch matmul"
  expect_output " 0 failed" "$arch matmul"
  if printf '%s' "$OUTPUT" | grep -q compile_error; then fail "$arch: a matmul configuration failed to compile"; else ok; fi
  # both load paths are in the sample: a row with STAGES 1 and one with STAGES 2-4 (column 8)
  printf '%s' "$OUTPUT" | awk '$1 ~ /^[0-9]+$/ && NF > 15 { s[$8 > 1] = 1 } END { exit !(s[0] && s[1]) }' && ok ||
    fail "$arch: the sample does not cover both STAGES=1 and a cp.async pipeline"
  expect_status 0 -- "$BIN" run --compile-only --arch $arch --no-progress --sample 16 --seed 1 lua/vecadd_space.lua
  expect_output "16 configurations for $arch" "$arch vecadd"
  expect_output " 0 failed" "$arch vecadd"
done
finish
