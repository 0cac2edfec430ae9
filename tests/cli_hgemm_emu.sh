#!/usr/bin/env bash
# cli_hgemm_emu: the CPU emulator of templates/hgemm.cu (bench/hgemm_emu.cpp: ldmatrix, mma.sync,
# wgmma with its descriptors, cp.async, mbarriers and the proxy fence emulated from the PTX ISA)
# finds three configurations correct on its seven sizes (ragged, unaligned operands, K < BK,
# split-K): a warp-specialized wgmma one with setmaxnreg and WAITG=1 (plain schedule and a random
# one), a wgmma one without a producer warpgroup, and the launcher's mma.sync fallback in FP16;
# and it catches two planted bugs: a wgmma reading what cp.async wrote without the proxy fence,
# and a producer that announces a stage before its copies have landed. Skipped (77) without g++
# or python3. About 30-40 s of CPU.
set -euo pipefail
cd "${CUTUNE_SRC:-$(dirname "$0")/..}"
command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || { echo "no g++ or python3: skipped"; exit 77; }
tmp=$(mktemp -d "${CUTUNE_TMP:-/tmp}/hgemm_emu.XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
build() { # out src flags...
  local o=$1 src=$2; shift 2
  g++ -O1 -std=c++17 -Wno-unknown-pragmas "$@" -o "$o" "$src" 2>"$tmp/build.err" || { cat "$tmp/build.err"; fail "building $o"; }
}
WS="-DWG=1 -DBM=128 -DBN=256 -DBK=64 -DWM=64 -DWN=256 -DSTAGES=4 -DSWZ=128 -DWS=1 -DWAITG=1 -DREGS=1"
W0="-DWG=1 -DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=128 -DSTAGES=4 -DSWZ=64 -DWS=0 -DWAITG=1"
MMA="-DWG=0 -DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=64 -DSTAGES=4 -DSWZ=64 -DHG_F16=1"
# shellcheck disable=SC2086
build "$tmp/ws" bench/hgemm_emu.cpp $WS
for seed in "" 1; do
  out=$(MM_EMU_SEED=$seed "$tmp/ws" 2>&1) || fail "WS seed '${seed:-plain}': $out"
  grep -q "^correct: WG=1 BM=128 BN=256" <<<"$out" || fail "WS seed '${seed:-plain}': $out"
done
# shellcheck disable=SC2086
build "$tmp/w0" bench/hgemm_emu.cpp $W0
out=$("$tmp/w0" 2>&1) || fail "WS=0: $out"
# shellcheck disable=SC2086
build "$tmp/mma" bench/hgemm_emu.cpp $MMA
for seed in "" 1; do
  out=$(MM_EMU_SEED=$seed "$tmp/mma" 2>&1) || fail "mma.sync f16 seed '${seed:-plain}': $out"
  grep -q "^correct: WG=0 .* f16" <<<"$out" || fail "mma.sync f16: $out"
done
echo "ok: three configurations correct"

# planted bugs, each in a copy of the template
mkdir -p "$tmp/m/bench" "$tmp/m/templates"
cp bench/hgemm_emu.cpp "$tmp/m/bench/"
plant() { # old new -> $tmp/m/templates/hgemm.cu
  python3 - "$tmp/m/templates/hgemm.cu" "$1" "$2" <<'PY' || fail "the template changed: update the planted bug"
import sys
s = open("templates/hgemm.cu").read()
old, new = sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
if s.count(old) != 1: sys.exit(1)
open(sys.argv[1], "w").write(s.replace(old, new))
PY
}
plant '    hg_wait<HG_D - 1>();\n    hg_fence_proxy();\n    __syncthreads();' '    hg_wait<HG_D - 1>();\n    __syncthreads();'
# shellcheck disable=SC2086
build "$tmp/nofence" "$tmp/m/bench/hgemm_emu.cpp" $W0
if out=$("$tmp/nofence" 1 2>&1); then fail "the missing proxy fence was not caught: $out"; fi
grep -q "through the generic proxy and not fenced" <<<"$out" || fail "the missing proxy fence: $out"
echo "ok: a wgmma reading unfenced cp.async data is caught"
plant '        hg_wait<HG_D>();\n        hg_fence_proxy();\n        hg_mbar_arrive(full' '        hg_mbar_arrive(full'
# shellcheck disable=SC2086
build "$tmp/early" "$tmp/m/bench/hgemm_emu.cpp" $WS
if out=$("$tmp/early" 1 2>&1); then fail "the early announcement was not caught: $out"; fi
grep -qE "changed between its issue and its wait|not fenced|WRONG|elements wrong" <<<"$out" || fail "the early announcement: $out"
echo "ok: a stage announced before its copies land is caught"
