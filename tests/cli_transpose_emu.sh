#!/usr/bin/env bash
# cli_transpose_emu: the CPU emulator of templates/transpose.cu (bench/transpose_emu.cpp) finds a
# few configurations correct on its sizes, which include interior tiles whose rows are not
# VEC-aligned on the input side, the output side or both (the peeled path: each row's vectors start
# at its first aligned column, its last lane moves the ends one by one) - float4 and float2 with
# padding and with the swizzle, the streaming variant (CS=1) and VEC=1 (no peel); and it catches
# two planted bugs in the peeled path: a peeled element taken one column off (a wrong output) and
# the store side's shift left out (a misaligned float4 store, which the emulator refuses as a GPU
# would fault). Skipped (77) without g++ or python3. About 10 s of CPU.
set -euo pipefail
cd "${CUTUNE_SRC:-$(dirname "$0")/..}"
command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || { echo "no g++ or python3: skipped"; exit 77; }
tmp=$(mktemp -d "${CUTUNE_TMP:-/tmp}/transpose_emu.XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

build() { # OUT SOURCE FLAGS...
  local out=$1 src=$2
  shift 2
  g++ -O1 -std=c++17 -Wno-unknown-pragmas "$@" -o "$out" "$src" 2>"$tmp/build.err" || { cat "$tmp/build.err"; fail "building $src $*"; }
}
for f in "-DTILE=64 -DPAD=1 -DBLOCK_ROWS=8 -DVEC=4 -DLDG=1 -DORDER=1" \
         "-DTILE=64 -DPAD=0 -DSWIZZLE=1 -DBLOCK_ROWS=16 -DVEC=2 -DUNROLL=0 -DORDER=3 -DTPB=4" \
         "-DTILE=32 -DPAD=2 -DBLOCK_ROWS=4 -DVEC=4 -DCS=1 -DLDG=0" \
         "-DTILE=64 -DPAD=0 -DSWIZZLE=1 -DBLOCK_ROWS=8 -DVEC=1 -DORDER=1"; do
  # shellcheck disable=SC2086
  build "$tmp/emu" bench/transpose_emu.cpp $f
  out=$("$tmp/emu" 2>&1) || fail "$f: $out"
  grep -q ": correct" <<<"$out" || fail "$f: $out"
done
echo "ok: four configurations correct, the peeled path among them"

# planted bugs on a copy of the template
mkdir -p "$tmp/m/bench" "$tmp/m/templates"
cp bench/transpose_emu.cpp "$tmp/m/bench/"
plant() { # OLD NEW: the template with OLD (once) replaced by NEW
  python3 - "$tmp/m/templates/transpose.cu" "$1" "$2" <<'EOF' || fail "the template's peeled path changed: update the planted bug"
import sys
s = open("templates/transpose.cu").read()
if s.count(sys.argv[2]) != 1: sys.exit(1)
open(sys.argv[1], "w").write(s.replace(sys.argv[2], sys.argv[3]))
EOF
}
F="-DTILE=64 -DPAD=1 -DBLOCK_ROWS=8 -DVEC=4 -DLDG=1 -DORDER=1"
plant "const int c = k < s ? k : TILE - VEC + k;" "const int c = k < s ? k : TILE - VEC + k - 1;"
# shellcheck disable=SC2086
build "$tmp/mut" "$tmp/m/bench/transpose_emu.cpp" $F
if out=$("$tmp/mut" 2>&1); then fail "a peeled element one column off passes: $out"; fi
grep -q "wrong elements" <<<"$out" || fail "the planted off-by-one: $out"
plant "tr_storev(orow + t + cw, w);" "tr_storev(orow + cw, w);"
# shellcheck disable=SC2086
build "$tmp/mut" "$tmp/m/bench/transpose_emu.cpp" $F
if out=$("$tmp/mut" 2>&1); then fail "a store without its row's shift passes: $out"; fi
grep -q "not 16-byte aligned" <<<"$out" || fail "the planted misaligned store: $out"
echo "ok: both planted bugs in the peeled path are caught"
