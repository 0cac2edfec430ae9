#!/usr/bin/env bash
# matmul_emu.sh: run bench/matmul_emu.cpp (the CPU emulator of templates/matmul.cu) for
# configurations read from stdin, one per line as -D flags ("-DBM=128 -DBN=256 ..."; anything
# after a '|' is ignored). Prints one line per configuration: correct/WRONG on 6 sizes (aligned,
# ragged in every dimension, N and K % 4 != 0, K < BK). Exit status 1 if any is wrong.
# SEEDS="1 2 3" also runs each configuration under those random schedules (MM_EMU_SEED: random
# thread order, copies landing early; bench/matmul_emu.cpp's header). Needs g++ with AddressSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
while IFS= read -r line; do
  flags=${line%%|*}
  [ -n "${flags// /}" ] || continue
  # shellcheck disable=SC2086
  if ! g++ -O1 -std=c++17 -fsanitize=address -Wno-unknown-pragmas $flags -o "$tmp/emu" bench/matmul_emu.cpp; then
    echo "BUILD FAILED: $flags"; bad=1; continue
  fi
  for seed in "" ${SEEDS:-}; do
    if ! MM_EMU_SEED=$seed ASAN_OPTIONS=detect_stack_use_after_return=0 "$tmp/emu" 2> "$tmp/err"; then
      echo "FAILED: $flags${seed:+ (MM_EMU_SEED=$seed)}"; grep -v "doesn't fully support" "$tmp/err" | head -5; bad=1
    fi
  done
done
exit $bad
