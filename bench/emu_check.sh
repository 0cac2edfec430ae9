#!/usr/bin/env bash
# emu_check.sh: run bench/transpose_emu.cpp (the CPU emulator of templates/transpose.cu) for
# configurations read from stdin, one per line as -D flags ("-DTILE=64 -DPAD=1 ..."; anything
# after a '|' is ignored). Prints one line per configuration: correct/WRONG on 12 sizes (ragged,
# unaligned, tiny) and the shared-memory wavefronts per instruction of each phase.
# Exit status 1 if any configuration is wrong. Needs g++ with AddressSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
while IFS= read -r line; do
  flags=${line%%|*}
  [ -n "${flags// /}" ] || continue
  # shellcheck disable=SC2086
  if ! g++ -O1 -std=c++17 -fsanitize=address -Wno-unknown-pragmas $flags -o "$tmp/emu" bench/transpose_emu.cpp; then
    echo "BUILD FAILED: $flags"; bad=1; continue
  fi
  if ! ASAN_OPTIONS=detect_stack_use_after_return=0 "$tmp/emu" 2> "$tmp/err"; then
    echo "FAILED: $flags"; grep -v "doesn't fully support" "$tmp/err" | head -5; bad=1
  fi
done
exit $bad
