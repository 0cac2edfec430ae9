#!/usr/bin/env bash
# cli_matmul_emu: the CPU emulator of templates/matmul.cu (bench/matmul_emu.cpp) on the
# configuration that failed once on the H200 (2026-12-01, REGDB=2 STAGES=3 with 16 warps), under
# the plain schedule and two random ones (MM_EMU_SEED), must find it correct; and on a copy of the
# template with a planted write-after-read race (the next tile's cp.async issued before the
# barrier that ends the other threads' reads of its stage), which the plain schedule cannot see
# (copies land at the wait, after every read), a random schedule must find it wrong.
# Split-K (SPLITK > 1: the slices of a tile are one cluster that adds its partial tiles through
# distributed shared memory): a split configuration is correct under the plain and two random
# schedules on the emulator's sizes (which include slices without a k tile, K and the k tiles not
# a multiple of the split, N % 4 != 0), and a planted race in its protocol (a block says it is
# done reading the others' partial tiles before it reads them, so a peer may leave the cluster,
# its shared memory gone, while it still reads) passes the plain schedule and fails a random one.
# Stream-K (STREAMK > 0: a persistent grid, tiles cut between clusters finished through a
# workspace by the last cluster to get there): configurations without and with SPLITK are correct
# on every grid of the emulator (one cluster, three, more clusters than tiles, no workspace)
# under the plain and two random schedules, with the same bits under all three (the partials are
# added in cluster order, whoever is last); and three planted bugs are caught: the barrier
# between a cluster's tiles left out (the next tile's copies overwrite what slow threads still
# read), the partials added from the last cluster's own onwards (right values, bits that depend
# on which cluster is last), the counter left unreset (the next launch would miscount); and the
# H200's failure (the counters' head sized by the grid) and a missing release or acquire fence
# (the emulator's workspace follows a weaker memory model than its sequential schedule).
# Skipped (77) without g++ or python3. About 30 s of CPU.
set -euo pipefail
cd "${CUTUNE_SRC:-$(dirname "$0")/..}"
command -v g++ >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || { echo "no g++ or python3: skipped"; exit 77; }
tmp=$(mktemp -d "${CUTUNE_TMP:-/tmp}/matmul_emu.XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

F="-DBM=32 -DBN=256 -DBK=16 -DWM=32 -DWN=16 -DTM=4 -DTN=4 -DSTAGES=3 -DSDB=0 -DPAD=4 -DREGDB=2 -DUNROLL=0 -DGROUPM=1 -DHOIST=1"
# shellcheck disable=SC2086
g++ -O1 -std=c++17 -Wno-unknown-pragmas $F -o "$tmp/emu" bench/matmul_emu.cpp 2>"$tmp/build.err" ||
  { cat "$tmp/build.err"; fail "building the emulator"; }
for seed in "" 1 2; do
  out=$(MM_EMU_SEED=$seed "$tmp/emu" 2>&1) || fail "seed '${seed:-plain}': $out"
  grep -q "^correct: BM=32 BN=256 BK=16" <<<"$out" || fail "seed '${seed:-plain}': $out"
done
echo "ok: the H200's failing configuration is correct under the plain and two random schedules"

# the planted race: STAGES=2 REGDB=1, the load of tile kt+1 moved above the barrier
mkdir -p "$tmp/m/bench" "$tmp/m/templates"
cp bench/matmul_emu.cpp "$tmp/m/bench/"
old='    __syncthreads();        // ... everyone'"'"'s; and everyone is done with tile kt-1'"'"'s stage
    if (kt + STAGES - 1 < KT) load_async(kt + STAGES - 1, wr);'
new='    if (kt + STAGES - 1 < KT) load_async(kt + STAGES - 1, wr);
    __syncthreads();'
python3 - "$tmp/m/templates/matmul.cu" "$old" "$new" <<'EOF' || fail "the template's cp.async loop changed: update the planted race"
import sys
s = open("templates/matmul.cu").read()
if s.count(sys.argv[2]) != 1: sys.exit(1)
open(sys.argv[1], "w").write(s.replace(sys.argv[2], sys.argv[3]))
EOF
M="-DBM=64 -DBN=64 -DBK=8 -DWM=32 -DWN=32 -DTM=4 -DTN=8 -DSTAGES=2 -DSDB=0 -DPAD=4 -DREGDB=1 -DUNROLL=0 -DGROUPM=1 -DHOIST=1"
# shellcheck disable=SC2086
g++ -O1 -std=c++17 -Wno-unknown-pragmas $M -o "$tmp/mut" "$tmp/m/bench/matmul_emu.cpp" 2>"$tmp/build.err" ||
  { cat "$tmp/build.err"; fail "building the emulator on the planted race"; }
caught=0
for seed in 1 2 3; do
  if ! MM_EMU_SEED=$seed "$tmp/mut" 2 >"$tmp/mut.out" 2>&1; then caught=1; break; fi
done
[ $caught = 1 ] || fail "no random schedule caught the planted race: $(cat "$tmp/mut.out")"
grep -q "^WRONG" "$tmp/mut.out" || fail "the planted race: $(cat "$tmp/mut.out")"
echo "ok: a random schedule catches the planted race (seed $seed)"

# split-K: correct under the plain and two random schedules
S="-DBM=64 -DBN=64 -DBK=16 -DWM=32 -DWN=32 -DTM=4 -DTN=8 -DSTAGES=3 -DSDB=0 -DPAD=4 -DREGDB=1 -DUNROLL=0 -DGROUPM=1 -DHOIST=1 -DSPLITK=4"
# shellcheck disable=SC2086
g++ -O1 -std=c++17 -Wno-unknown-pragmas $S -o "$tmp/split" bench/matmul_emu.cpp 2>"$tmp/build.err" ||
  { cat "$tmp/build.err"; fail "building the emulator (split-K)"; }
for seed in "" 1 2; do
  out=$(MM_EMU_SEED=$seed "$tmp/split" 2>&1) || fail "split-K, seed '${seed:-plain}': $out"
  grep -q "^correct: .* SPLITK=4" <<<"$out" || fail "split-K, seed '${seed:-plain}': $out"
done
echo "ok: a split-K configuration (SPLITK=4) is correct under the plain and two random schedules"

# the planted split-K race: the arrive that ends this block's reads of the others' tiles moved
# above those reads
mkdir -p "$tmp/s/bench" "$tmp/s/templates"
cp bench/matmul_emu.cpp "$tmp/s/bench/"
python3 - "$tmp/s/templates/matmul.cu" <<'EOF' || fail "the template's split-K epilogue changed: update the planted race"
import sys
s = open("templates/matmul.cu").read()
arrive = "    mm_cluster_arrive();  // this block's reads of the others' tiles are done\n"
anchor = "    constexpr int Q = BM * BN / 4;  // float4s per tile\n"
if s.count(arrive) != 1 or s.count(anchor) != 1: sys.exit(1)
s = s.replace(arrive, "").replace(anchor, anchor + arrive)
open(sys.argv[1], "w").write(s)
EOF
# shellcheck disable=SC2086
g++ -O1 -std=c++17 -Wno-unknown-pragmas $S -o "$tmp/smut" "$tmp/s/bench/matmul_emu.cpp" 2>"$tmp/build.err" ||
  { cat "$tmp/build.err"; fail "building the emulator on the planted split-K race"; }
out=$("$tmp/smut" 2>&1) || fail "the planted split-K race fails the plain schedule (it should pass there): $out"
caught=0
for seed in 1 2 3 4 5 6; do
  if ! MM_EMU_SEED=$seed "$tmp/smut" >"$tmp/smut.out" 2>&1; then caught=1; break; fi
done
[ $caught = 1 ] || fail "no random schedule caught the planted split-K race: $(cat "$tmp/smut.out")"
grep -q "^WRONG" "$tmp/smut.out" || fail "the planted split-K race: $(cat "$tmp/smut.out")"
echo "ok: a random schedule catches the planted split-K race (seed $seed)"

# stream-K: correct on every grid under three schedules, the same bits under all of them
SK="-DBM=64 -DBN=32 -DBK=16 -DWM=32 -DWN=16 -DTM=4 -DTN=4 -DSTAGES=3 -DSDB=0 -DPAD=4 -DREGDB=1 -DUNROLL=0 -DGROUPM=1 -DHOIST=1"
for split in 1 2; do
  # shellcheck disable=SC2086
  g++ -O1 -std=c++17 -Wno-unknown-pragmas $SK -DSPLITK=$split -DSTREAMK=1 -o "$tmp/sk" bench/matmul_emu.cpp 2>"$tmp/build.err" ||
    { cat "$tmp/build.err"; fail "building the emulator (stream-K, SPLITK=$split)"; }
  hashes=""
  for seed in "" 1 2; do
    out=$(MM_EMU_SEED=$seed "$tmp/sk" 2>&1) || fail "stream-K SPLITK=$split, seed '${seed:-plain}': $out"
    grep -q "^correct: .* SPLITK=$split STREAMK=1" <<<"$out" || fail "stream-K SPLITK=$split, seed '${seed:-plain}': $out"
    hashes="$hashes ${out##*bits=}"
  done
  # shellcheck disable=SC2086
  [ "$(printf '%s\n' $hashes | sort -u | wc -l)" = 1 ] || fail "stream-K SPLITK=$split: the bits differ between schedules:$hashes"
done
echo "ok: stream-K (SPLITK=1 and 2) is correct on every grid, the same bits under three schedules"

# planted stream-K bugs, each on a copy of the template
mkdir -p "$tmp/k/bench" "$tmp/k/templates"
cp bench/matmul_emu.cpp "$tmp/k/bench/"
mutant() { # NAME OLD NEW: build the emulator (stream-K, SPLITK=1) on the template with OLD replaced by NEW
  python3 - "$tmp/k/templates/matmul.cu" "$2" "$3" <<'EOF' || fail "the template's stream-K code changed: update the planted bug '$1'"
import sys
s = open("templates/matmul.cu").read()
if s.count(sys.argv[2]) != 1: sys.exit(1)
open(sys.argv[1], "w").write(s.replace(sys.argv[2], sys.argv[3]))
EOF
  # shellcheck disable=SC2086
  g++ -O1 -std=c++17 -Wno-unknown-pragmas $SK -DSPLITK=1 -DSTREAMK=1 -o "$tmp/kmut" "$tmp/k/bench/matmul_emu.cpp" 2>"$tmp/build.err" ||
    { cat "$tmp/build.err"; fail "building the emulator on the planted bug '$1'"; }
}
mutant barrier "    __syncthreads();  // the previous tile's reads of the shared memory are done: it is the next one's
" ""
if out=$("$tmp/kmut" 2>&1); then fail "the missing barrier between a cluster's tiles passes: $out"; fi
grep -q "^WRONG" <<<"$out" || fail "the missing barrier between tiles: $out"
mutant order "    for (int c = c0; c <= c1; c++) {
      const float4 *p = reinterpret_cast<const float4 *>(slot(c)) + tid;
#pragma unroll 4
      for (int q = 0; q < TM * TN / 4; q++) {
        float4 v = __ldcg(p + q * MM_THREADS);
        if (c != c0) {" "    for (int k = 0; k <= c1 - c0; k++) {
      const int c = c0 + (cl - c0 + k) % (c1 - c0 + 1);
      const float4 *p = reinterpret_cast<const float4 *>(slot(c)) + tid;
#pragma unroll 4
      for (int q = 0; q < TM * TN / 4; q++) {
        float4 v = __ldcg(p + q * MM_THREADS);
        if (k != 0) {"
hashes=""
for seed in 1 2 3; do
  out=$(MM_EMU_SEED=$seed "$tmp/kmut" 2>&1) || fail "the planted summation order gives wrong values (it should only change bits): $out"
  hashes="$hashes ${out##*bits=}"
done
# shellcheck disable=SC2086
[ "$(printf '%s\n' $hashes | sort -u | wc -l)" -gt 1 ] || fail "a summation order that depends on the last cluster gives the same bits under three schedules"
mutant reset "      if (last) *count = 0u;
" ""
if out=$("$tmp/kmut" 2>&1); then fail "a counter left unreset passes: $out"; fi
grep -q "counter .* not 0, after a launch" <<<"$out" || fail "the unreset counter: $out"
echo "ok: the three planted stream-K bugs are caught (missing barrier, arrival-order sums, unreset counter)"
# the H200's stream-K failure (2026-12, second templates call): the workspace's counters sized by
# the grid, so that a smaller grid's partial tiles lay on a larger grid's counters in the one
# workspace every configuration shares; the emulator keeps one workspace for the run and runs
# grids of 73 and 37 clusters one after the other: a partial tile inside the counters is caught
mutant layout "    return ws + MM_WS_COUNTERS + (2LL" "    return ws + ((long long)gridDim.x + 63) / 64 * 64 + (2LL"
if out=$("$tmp/kmut" 2>&1); then fail "a workspace layout that depends on the grid passes: $out"; fi
grep -q "workspace access out of the partial tiles" <<<"$out" || fail "the grid-sized counters: $out"
# the memory model: a partial stored without a fence before the count (the last cluster may not
# see it), and read without a fence after the count (the read may be served before it)
mutant release "               make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]));
    __threadfence();" "               make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]));"
if out=$("$tmp/kmut" 2>&1); then fail "a partial published without a fence passes: $out"; fi
grep -q "^WRONG" <<<"$out" || fail "the missing release fence: $out"
mutant acquire "    __threadfence();  // the others' partials, published before their counts, are read after it
" ""
if out=$("$tmp/kmut" 2>&1); then fail "partials read without a fence after the count pass: $out"; fi
grep -q "no fence after its count" <<<"$out" || fail "the missing acquire fence: $out"
echo "ok: the grid-sized workspace layout and both missing fences are caught"
