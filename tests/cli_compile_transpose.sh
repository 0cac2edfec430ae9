#!/usr/bin/env bash
# Without a GPU: the whole transpose space compiles for sm_90 and sm_80 with no failure, the
# table reports resources, and a second run is served from the compile cache in under a second.
. "$(dirname "$0")/lib_cli.sh"
set -e
for arch in sm_90 sm_80; do
  expect_status 0 -- "$BIN" run --compile-only --arch $arch --no-progress lua/transpose_space.lua
  expect_output "0 failed" "$arch run"
  expect_output "timing needs a GPU" "$arch run"
  expect_output "regs" "$arch table"
  if printf '%s' "$OUTPUT" | grep -q compile_error; then fail "$arch: a configuration failed to compile"; else ok; fi
done
start=$(date +%s.%N)
expect_status 0 -- "$BIN" run --compile-only --arch sm_90 --no-progress lua/transpose_space.lua
end=$(date +%s.%N)
expect_output " 0 compiled," "second run (everything from the cache)"
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
echo "second run: $secs s"
if awk -v s="$secs" 'BEGIN { exit !(s < 1.0) }'; then ok; else fail "second run took $secs s (wanted < 1 s)"; fi
finish
