#!/usr/bin/env bash
# matmul_recheck.sh: the REGDB=2 race, measured (GPU stage `mmrecheck` of bench/gpu_session.sh,
# about 20 s of GPU time at REPS=300).
#
# BM=32,BN=256,BK=16,WM=32,WN=16,TM=4,TN=4,STAGES=3,SDB=0,PAD=4,REGDB=2,UNROLL=0,GROUPM=1,HOIST=1
# failed the tuner's check at 4096^3 on the H200. In the template of that time REGDB=2's tile
# barrier was a plain __syncthreads(): ptxas left the last k step's fragment LDS in flight across
# it while other warps, past the barrier, start overwriting that buffer with a later tile. On
# 2026-12-01 (third session) this stage found: the plain barrier 300 of 300 runs wrong (2,800-8,000
# of the 16.8 M elements, a different set each run, most of them one k = 0 product off); the
# same configuration with the barrier's predicate reading those fragments (__syncthreads_or:
# ptxas must wait for the LDS before it) 0 of 300; REGDB=1, STAGES=2 and STAGES=4 0 of 300; the
# two best REGDB=2 configurations 0 of 300 either way. The template now has that barrier
# (drain_sync in templates/matmul.cu); this stage keeps both so that the finding can be re-run:
#
#   each configuration below, built by nvcc into bench/matmul_recheck.cu, REPS runs at 4096^3
#   on the same inputs, every output checked against a float64 reference (the tuner's tolerance):
#   the failing one with the committed template and with the PLAIN barrier (a copy of the
#   template with drain_sync() replaced by __syncthreads()), its REGDB=1 control, the same shape
#   at STAGES=2 and 4, and the two best REGDB=2 configurations of the H200 store (BM=128 BN=256
#   BK=32 TM=16 TN=8 STAGES=3), the first of them with the plain barrier too.
#
#   Since the fourth session (branch mmnext): the committed barrier's predicate also reads one
#   accumulator per float4 of the fragments (acc[4i][0], acc[0][4j]), so every fragment load of
#   the tile is consumed before the barrier by data dependence (seen in the SASS of F and S2 under
#   nvcc and NVRTC: no LDS outstanding at the BAR); the "failing" and "second" rows measure it.
#   Since call 5 of that session: S2 (BM=32 BN=32 BK=16 WM=16 WN=32 TM=TN=4 STAGES=3 GROUPM=8),
#   wrong once with the committed barrier, with the committed, PLAIN and BOTH barriers (BOTH: the
#   predicate also reads the step BK-2 fragments), and the first configuration with BOTH.
#
# `bench/matmul_recheck.sh ragged` (fifth session): R3 = BM=64 BN=64 BK=32 WM=16 WN=32 TM=TN=4
#   STAGES=3 REGDB=2 HOIST=1, wrong at 1000x1003x999 (lua/matmul_space.lua's problem 3: K and N
#   not multiples of 4, so A and B move 4 bytes at a time) at all three GROUPM values in a default
#   search on the H200 while the CPU emulator (bench/matmul_emu.cpp, random schedules too) finds
#   it correct: the committed, PLAIN and BOTH barriers; CLOBBER (the cp.async, commit and wait asm
#   statements with a "memory" clobber, so the compiler cannot move shared-memory loads and
#   stores across them); HOIST=0, REGDB=0 and 1, STAGES=2 and 4; the same configuration at sizes
#   where only K, only N, or neither is ragged, and at 4096^3; and S2 at 1000x1003x999.
#
# Output: $OUT/matmul_recheck.txt: a RESULT line per configuration (failed_runs of reps; for a
# failing run the wrong elements by warp, lane, thread-tile row/column, and how many are exactly
# one product or one BK slice off). The PLAIN rows may fail (that is the bug); the exit status
# is 0 iff every other row passed. Reading S2: "second" failing and "second-both" passing means
# the template needs the BOTH predicate; both failing means in-flight fragment loads are not
# the whole story. Environment: OUT (default build/bench), REPS
# (default 400), NVCC, ARCH (default sm_90); BUILD_ONLY=1 builds and stops (no GPU needed).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-build/bench}
REPS=${REPS:-400}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$OUT/matmul_recheck.txt"
: >"$log"

# the diagnostic copy of the template (PLAIN): the REGDB=2 barriers as they were before the fix,
# a plain __syncthreads() that lets the last k step's LDS stay in flight across it
python3 - "$tmp/matmul_plain.cu" <<'EOF' || { echo "matmul_recheck.sh: cannot patch the template" | tee -a "$log"; exit 1; }
import sys
s = open("templates/matmul.cu").read()
if s.count("    drain_sync();\n") != 2: sys.exit("the two REGDB=2 barriers (drain_sync) not found")
open(sys.argv[1], "w").write(s.replace("    drain_sync();\n", "    __syncthreads();\n"))
EOF
# the diagnostic copy BOTH: the drained barrier's predicate reads both fragment slots (the step
# BK-2 fragments too, whose FFMAs may also sink below the barrier): the next hypothesis for the
# second failing configuration (S2 below, wrong with the committed barrier in call 5)
python3 - "$tmp/matmul_both.cu" <<'EOF' || { echo "matmul_recheck.sh: cannot patch the template" | tee -a "$log"; exit 1; }
import sys
s = open("templates/matmul.cu").read()
old = "    for (int j = 0; j < TN; j++) p |= bf[1][j] == 1e30f;\n"
new = old + "    for (int i = 0; i < TM; i++) p |= af[0][i] == 1e30f;\n    for (int j = 0; j < TN; j++) p |= bf[0][j] == 1e30f;\n"
if s.count(old) != 1: sys.exit("drain_sync's predicate not found")
open(sys.argv[1], "w").write(s.replace(old, new))
EOF

# the diagnostic copy CLOBBER: the cp.async, commit and wait statements gain a "memory" clobber
python3 - "$tmp/matmul_clobber.cu" <<'EOF' || { echo "matmul_recheck.sh: cannot patch the template" | tee -a "$log"; exit 1; }
import sys
s = open("templates/matmul.cu").read()
subs = [('"r"(src_bytes));', '"r"(src_bytes) : "memory");'),
        ('"cp.async.commit_group;\\n" ::);', '"cp.async.commit_group;\\n" ::: "memory");'),
        ('::"n"(N));', '::"n"(N) : "memory");')]
for a, b in subs:
    if a not in s: sys.exit("not found: " + a)
    s = s.replace(a, b)
open(sys.argv[1], "w").write(s)
EOF

F="BM=32 BN=256 BK=16 WM=32 WN=16 TM=4 TN=4 STAGES=3 SDB=0 PAD=4 REGDB=2 UNROLL=0 GROUPM=1 HOIST=1"
S2="BM=32 BN=32 BK=16 WM=16 WN=32 TM=4 TN=4 STAGES=3 SDB=0 PAD=4 REGDB=2 UNROLL=0 GROUPM=8 HOIST=1"
W1="BM=128 BN=256 BK=32 WM=32 WN=128 TM=16 TN=8 STAGES=3 SDB=0 PAD=4 REGDB=2 UNROLL=0 GROUPM=16 HOIST=1"
W2="BM=128 BN=256 BK=32 WM=64 WN=64 TM=16 TN=8 STAGES=3 SDB=0 PAD=4 REGDB=2 UNROLL=0 GROUPM=8 HOIST=1"
R3="BM=64 BN=64 BK=32 WM=16 WN=32 TM=4 TN=4 STAGES=3 SDB=0 PAD=4 REGDB=2 UNROLL=0 GROUPM=1 HOIST=1"
P3="1000 1003 999"
# name|configuration|template (empty: the committed one)|M N K (empty: 4096^3)
if [ "${1:-}" = ragged ]; then rows=(
  "r3|$R3||$P3"
  "r3-plain|$R3|$tmp/matmul_plain.cu|$P3"
  "r3-both|$R3|$tmp/matmul_both.cu|$P3"
  "r3-clobber|$R3|$tmp/matmul_clobber.cu|$P3"
  "r3-hoist0|${R3/HOIST=1/HOIST=0}||$P3"
  "r3-regdb1|${R3/REGDB=2/REGDB=1}||$P3"
  "r3-regdb0|${R3/REGDB=2/REGDB=0}||$P3"
  "r3-stages2|${R3/STAGES=3/STAGES=2}||$P3"
  "r3-stages4|${R3/STAGES=3/STAGES=4}||$P3"
  "r3-kragged|$R3||1000 1004 999"
  "r3-nragged|$R3||1000 1003 1000"
  "r3-aligned|$R3||1000 1004 1000"
  "r3-4096|$R3||"
  "s2-ragged|$S2||$P3"
); else rows=(
  "failing|$F|"
  "failing-plain|$F|$tmp/matmul_plain.cu"
  "failing-regdb1|${F/REGDB=2/REGDB=1}|"
  "failing-stages2|${F/STAGES=3/STAGES=2}|"
  "failing-stages4|${F/STAGES=3/STAGES=4}|"
  "winner1|$W1|"
  "winner1-plain|$W1|$tmp/matmul_plain.cu"
  "winner2|$W2|"
  "second|$S2|"
  "second-both|$S2|$tmp/matmul_both.cu"
  "second-plain|$S2|$tmp/matmul_plain.cu"
  "failing-both|$F|$tmp/matmul_both.cu"
); fi
# build them all in parallel
for r in "${rows[@]}"; do
  IFS='|' read -r name cfg tpl size <<<"$r"
  flags=$(for kv in $cfg; do printf -- '-D%s ' "$kv"; done)
  [ -n "$tpl" ] && flags="$flags -DMM_TEMPLATE='\"$tpl\"'"
  # shellcheck disable=SC2086
  (eval "\"$NVCC\" -O3 -arch=$ARCH $flags -o \"$tmp/$name\" bench/matmul_recheck.cu" >"$tmp/$name.build" 2>&1 ||
    echo "BUILD FAILED" >>"$tmp/$name.build") &
done
wait
[ -n "${BUILD_ONLY:-}" ] && { ls -l "$tmp"; cat "$tmp"/*.build | grep -v "177-D\|compute = \|^ *^\|^$\|Remark"; exit 0; }
bad=0
for r in "${rows[@]}"; do
  IFS='|' read -r name cfg tpl size <<<"$r"
  case "$tpl" in
    *plain*) what=" (PLAIN barrier: the template before the fix)" ;;
    *both*) what=" (BOTH: the barrier's predicate reads both fragment slots)" ;;
    *clobber*) what=" (CLOBBER: memory clobbers on the cp.async asm)" ;;
    *) what="" ;;
  esac
  echo "== $name: $cfg$what" | tee -a "$log"
  if [ ! -x "$tmp/$name" ]; then
    tail -5 "$tmp/$name.build" | tee -a "$log"; bad=1; continue
  fi
  if [ -n "$size" ]; then sz="--mnk $size"; else sz="--size 4096"; fi
  # shellcheck disable=SC2086
  timeout 240 "$tmp/$name" $sz --reps "$REPS" >>"$log" 2>&1 || case "$tpl" in *plain*) ;; *) bad=1 ;; esac
  grep RESULT "$log" | tail -1
done
exit $bad
