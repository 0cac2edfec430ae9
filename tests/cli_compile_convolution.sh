#!/bin/bash
# cli_compile_convolution: templates/convolution.cu compiles with NVRTC for sm_90 and sm_80 on a
# sample of lua/convolution_space.lua (tests/spaces/convolution_sample.lua: shared and global
# loads, padding, read-only loads, the largest tiles), with no spills.
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
for arch in sm_90 sm_80; do
  expect_status 0 -- "$BIN" run --compile-only --no-progress --arch "$arch" --jobs 2 tests/spaces/convolution_sample.lua
  expect_output "4 configurations for $arch"
  expect_output "4 compiled"
  expect_output ", 0 failed"
  if printf '%s\n' "$OUTPUT" | grep -E "^ +[0-9]+ " | awk '{print $14}' | grep -qv "^0/0$"; then fail "spills on $arch"; else ok; fi
done
finish
