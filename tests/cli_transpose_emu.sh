#!/usr/bin/env bash
# cli_transpose_emu: the CPU emulator of templates/transpose.cu (bench/transpose_emu.cpp) finds a
# few configurations correct on its sizes, which include interior tiles whose rows are not
# VEC-aligned on the input side, the output side or both (the peeled path: each row's vectors start
# at its first aligned column, its last lane moves the ends one by one) - float4 and float2 with
# padding and with the swizzle, the streaming variant (CS=1) and VEC=1 (no peel); and it catches
# two planted bugs in the peeled path: a peeled element taken one column off (a wrong output) and
# the store side's shift left out (a misaligned float4 store, which the emulator refuses as a GPU
# would fault). The write-aligned tiles (ALIGN=8 and 32: each row of out written in runs that start
# at a sector / line of the matrix) are correct, and the emulator's count of writes to a sector
# (line) of out that another block also writes, row boundaries aside, is 0 for them and not for
# the plain tiles; a planted bug in the shift (its sign) is caught. With ORDER the kernel's
# argument (no -DORDER), every order is correct and a planted bug in one is caught. Skipped (77)
# without g++ or python3. About 20 s of CPU.
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

# write-aligned tiles: correct, and no sector (ALIGN=8) or line (ALIGN=32) of out written by two
# blocks, where the plain tiles share many
shared() { sed -n 's/.*sector another block writes: \([0-9]*\), to a line: \([0-9]*\);.*/\1 \2/p' <<<"$1"; }
for f in "-DTILE=64 -DPAD=0 -DSWIZZLE=1 -DBLOCK_ROWS=8 -DVEC=1 -DORDER=1 -DALIGN=32|0 0" \
         "-DTILE=64 -DPAD=1 -DBLOCK_ROWS=8 -DVEC=1 -DLDG=1 -DORDER=1 -DALIGN=8|0 " \
         "-DTILE=32 -DPAD=1 -DBLOCK_ROWS=4 -DVEC=1 -DALIGN=32 -DTPB=4|0 0"; do
  want=${f#*|}
  # shellcheck disable=SC2086
  build "$tmp/emu" bench/transpose_emu.cpp ${f%|*}
  out=$("$tmp/emu" 2>&1) || fail "${f%|*}: $out"
  grep -q ": correct" <<<"$out" || fail "${f%|*}: $out"
  got=$(shared "$out")
  [ "${got:0:${#want}}" = "$want" ] || fail "${f%|*}: writes shared between blocks '$got', expected '$want...': $out"
done
build "$tmp/emu" bench/transpose_emu.cpp -DTILE=64 -DPAD=0 -DSWIZZLE=1 -DBLOCK_ROWS=8 -DVEC=1 -DORDER=1
out=$("$tmp/emu" 2>&1)
read -r sec lin <<<"$(shared "$out")"
[ "$sec" -gt 0 ] && [ "$lin" -gt 0 ] || fail "the plain tiles share no sector of out between blocks: $out"
plant "        tr_store1(out + (long long)x * N + (y0 - sh + cw), TR_SMEM(TR_SIDX(ALIGN - sh + cw, c)));" \
      "        tr_store1(out + (long long)x * N + (y0 + sh + cw), TR_SMEM(TR_SIDX(ALIGN - sh + cw, c)));"
build "$tmp/mut" "$tmp/m/bench/transpose_emu.cpp" -DTILE=64 -DPAD=0 -DSWIZZLE=1 -DBLOCK_ROWS=8 -DVEC=1 -DORDER=1 -DALIGN=32
if out=$("$tmp/mut" 2>&1); then fail "a shift of the wrong sign passes: $out"; fi
grep -q "wrong elements" <<<"$out" || fail "the planted shift of the wrong sign: $out"
echo "ok: the write-aligned tiles are correct and write each sector (ALIGN=8) or line (ALIGN=32) from one block"

# ORDER as the kernel's argument (no -DORDER: lua/transpose_space.lua's runtime parameter): every
# size in each of the four orders, with and without TPB and ALIGN; a planted bug in the
# column-major order (its rows of tiles counted along x) is caught, with the order named
for f in "-DTILE=64 -DPAD=1 -DBLOCK_ROWS=8 -DVEC=4 -DLDG=1" "-DTILE=64 -DPAD=0 -DSWIZZLE=1 -DBLOCK_ROWS=8 -DVEC=1 -DALIGN=8 -DTPB=4"; do
  # shellcheck disable=SC2086
  build "$tmp/emu" bench/transpose_emu.cpp $f
  out=$("$tmp/emu" 2>&1) || fail "$f (ORDER an argument): $out"
  grep -q ": correct" <<<"$out" || fail "$f (ORDER an argument): $out"
done
plant "    by = b % gy;" "    by = b % gx;"
build "$tmp/mut" "$tmp/m/bench/transpose_emu.cpp" -DTILE=64 -DPAD=1 -DBLOCK_ROWS=8 -DVEC=4 -DLDG=1
if out=$("$tmp/mut" 2>&1); then fail "a wrong column-major order passes: $out"; fi
grep -q "with the argument ORDER=1" <<<"$out" || fail "the planted order bug is not named ORDER=1: $out"
echo "ok: ORDER as the kernel's argument: correct in each order, a wrong order caught"
