#!/usr/bin/env bash
# emu_check.sh: run a CPU emulator of a template (EMU, default bench/transpose_emu.cpp, the
# emulator of templates/transpose.cu; bench/matmul_emu.sh gives bench/matmul_emu.cpp) for
# configurations read from stdin, one per line as -D flags ("-DTILE=64 -DPAD=1 ..."; anything
# after a '|' is ignored). The emulator prints one line per configuration: correct/WRONG on its
# sizes (the transpose's: 12, ragged, unaligned, tiny, and the shared-memory wavefronts per
# instruction of each phase). SEEDS="1 2 3" also runs each configuration with MM_EMU_SEED set to
# each seed (the matmul emulator's random schedules). Exit status 1 if any configuration is
# wrong. Needs g++ with AddressSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
EMU=${EMU:-bench/transpose_emu.cpp}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
while IFS= read -r line; do
  flags=${line%%|*}
  [ -n "${flags// /}" ] || continue
  # shellcheck disable=SC2086
  if ! g++ -O1 -std=c++17 -fsanitize=address -Wno-unknown-pragmas $flags -o "$tmp/emu" "$EMU"; then
    echo "BUILD FAILED: $flags"; bad=1; continue
  fi
  for seed in "" ${SEEDS:-}; do
    if ! MM_EMU_SEED=$seed ASAN_OPTIONS=detect_stack_use_after_return=0 "$tmp/emu" 2> "$tmp/err"; then
      echo "FAILED: $flags${seed:+ (MM_EMU_SEED=$seed)}"; grep -v "doesn't fully support" "$tmp/err" | head -5; bad=1
    fi
  done
done
exit $bad
