#!/usr/bin/env bash
# templates_session.sh: one GPU call (about 2.5 minutes on an H200 with 16 cores: ~40 s of nvcc,
# ~45 s SGEMM, ~10 s transpose, ~30 s Nsight Compute) that says how fast the templates' new paths
# are before any tuning, and why the transpose loses at odd sizes: a chosen handful of
# configurations per template, each built by nvcc into one process (bench/templates_sgemm.cu,
# bench/templates_transpose.cu), checked and timed over the shapes of issue 20 (and a few
# controls), checked at random sizes, then profiled.
#
#   OUT=/tmp/out bench/templates_session.sh          # on the GPU machine, from the repository root
#   BUILD_ONLY=1 bench/templates_session.sh          # build only (no GPU needed)
#   QUICK=1 OUT=/tmp/out bench/templates_session.sh  # the short check: ~20 s build, ~40 s GPU (below)
#
# SGEMM: each configuration against cuBLAS (strict FP32: CUBLAS_DEFAULT_MATH and
# CUBLAS_PEDANTIC_MATH, the faster counted), checked against a float64 reference with the space's
# tolerance at that K; split-K and stream-K ones also run three times and compared bit for bit.
# Candidates: the 4096^3 winner (w: 128x256 tiles) unsplit (w1), the same configuration built from
# the template before split-K (w1o: OLD_REV or the file OLD_TEMPLATE; the new template's SASS for
# it is byte-identical to the first session's split-K template, so this settles whether split-K
# slowed the aligned path), split in a cluster (w2), stream-K (wk: a persistent grid of one block
# per SM over all k tiles; w2k, w4k, w8k: clusters of 2, 4, 8 as the stream-K units, for few
# tiles and a long K: 256x256x16384), 128x128 tiles split 2 (q2: the best at 1000x1003x999 in the
# first call), stream-K alone and in clusters of 4 (qk, q4k), 256x128 split 2 (t2: the best at
# 16384x128x4096) and stream-K (tk), 64x64 (s1) and 32x64 split 8 (n8: 512^3). Shapes: issue 20's
# twelve (SUMMARY12: the targets' figures over the best candidate), 4097^3 and 1000x1004x1000 (the
# aligned neighbour of 1000x1003x999).
# Transpose: against cudaMemcpy of the same bytes and a float4 copy kernel, checked bit for bit:
# the store's winners (v1, h2, v4; c1 = v1 with streaming accesses), the write-aligned tiles
# (a8, a32: ALIGN, every row of out written from sector / line boundaries; a32c/a32p/a32r variants)
# and, for 8192^2, other block orders (o2, o3), 16 rows per thread (b4) and two tiles per block (p2).
# Nsight Compute (if found, NO_NCU unset; --clock-control none): v1, a8, a32 and a float4 copy at
# 8192^2, 8191x8193, 12345x6789 plus scalar copies with the source and/or the destination one float
# off (DRAM and L2 traffic over the ideal: is a misaligned write completed from DRAM?); w1, w1o,
# wk at 4096^3 and 4097^3 (clock, stalls, FMA pipe). Each kernel once, a few metrics.
#
# What comes back under $OUT: templates_session.txt (the summary: per shape the best candidate and
# its share of the vendor, SUMMARY12, w1o against w1 and wk, v1 against a8 and a32, the ncu tables,
# every WRONG, NONDET and SWEEP-FAIL line) and templates_session.tgz (the full tables, the build
# log with each unit's registers and spills, the ncu reports). Exit status 1 if a check failed.
# With CUTUNE (the cutune binary, for `cutune header`), the production launcher is built from a
# header of split-K and stream-K entries (bench/sk_header.sh) and kernels/example/sgemm_example
# checks cutune_sgemm, its workspace included, at the entries' sizes and small ragged ones.
# Environment: OUT (default build/templates_session), MM_CANDS and TR_CANDS (files of candidates,
# "NAME NAME=VALUE ..." per line, instead of the built-in lists), NVCC, ARCH (default sm_90), JOBS (parallel
# nvcc, default nproc), REPS_MM (15), REPS_TR (30), SWEEP_MM (30 sizes), SWEEP_TR (40), SHAPES_MM,
# SHAPES_TR (comma-separated MxNxK / RxC; default: the drivers' lists), NO_NCU, NCU_TIMEOUT (90 s
# per ncu run), NCU_TR / NCU_TR_ONLY, NCU_MM / NCU_MM_ONLY (the shapes and configurations profiled).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-build/templates_session}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
mkdir -p "$OUT"
B=$(mktemp -d)
trap 'rm -rf "$B"' EXIT
mkdir -p "$B/gen" "$B/logs"

# name and -D values of each candidate (GROUPM=8 is passed at run time); "|old" builds it from the
# template as it was before split-K (OLD_REV, or the file OLD_TEMPLATE)
W="BM=128 BN=256 BK=32 WM=32 WN=128 TM=16 TN=8 STAGES=3 SDB=0 PAD=4 REGDB=0 UNROLL=0 HOIST=1"
T128="BM=128 BN=128 BK=32 WM=64 WN=32 TM=8 TN=8 STAGES=3 SDB=0 PAD=4 REGDB=0 UNROLL=0 HOIST=1"
T256="BM=256 BN=128 BK=32 WM=128 WN=32 TM=16 TN=8 STAGES=3 SDB=0 PAD=4 REGDB=0 UNROLL=0 HOIST=1"
T64="BM=64 BN=64 BK=32 WM=32 WN=32 TM=8 TN=4 STAGES=2 SDB=0 PAD=4 REGDB=0 UNROLL=0 HOIST=1"
T3264="BM=32 BN=64 BK=32 WM=16 WN=32 TM=4 TN=4 STAGES=3 SDB=0 PAD=4 REGDB=1 UNROLL=0 HOIST=1"
MM=(
  "w1 $W SPLITK=1" "w1v $W SPLITK=1 BVPATHS=2" "w1o $W SPLITK=1|old" "w2 $W SPLITK=2"
  "wk $W SPLITK=1 STREAMK=1" "w2k $W SPLITK=2 STREAMK=1" "w4k $W SPLITK=4 STREAMK=1" "w8k $W SPLITK=8 STREAMK=1"
  "q2 $T128 SPLITK=2" "qk $T128 SPLITK=1 STREAMK=1" "q4k $T128 SPLITK=4 STREAMK=1"
  "t2 $T256 SPLITK=2" "tk $T256 SPLITK=1 STREAMK=1"
  "s1 $T64 SPLITK=1" "n8 $T3264 SPLITK=8"
)
V1="TILE=64 PAD=0 SWIZZLE=1 BLOCK_ROWS=8 VEC=1 UNROLL=1 LDG=0 ORDER=1 TPB=1"
TR=(
  "v1 $V1" "c1 $V1 CS=1"
  "h2 TILE=64 PAD=1 SWIZZLE=0 BLOCK_ROWS=16 VEC=2 UNROLL=1 LDG=1 ORDER=1 TPB=1"
  "v4 TILE=64 PAD=0 SWIZZLE=1 BLOCK_ROWS=16 VEC=4 UNROLL=1 LDG=1 ORDER=1 TPB=1"
  "a8 $V1 ALIGN=8" "a32 $V1 ALIGN=32" "a32c $V1 ALIGN=32 CS=1"
  "a32p TILE=64 PAD=1 SWIZZLE=0 BLOCK_ROWS=8 VEC=1 UNROLL=1 LDG=1 ORDER=1 TPB=1 ALIGN=32"
  "a32r TILE=64 PAD=0 SWIZZLE=1 BLOCK_ROWS=16 VEC=1 UNROLL=1 LDG=0 ORDER=1 TPB=1 ALIGN=32"
  "o2 ${V1/ORDER=1/ORDER=2}" "o3 ${V1/ORDER=1/ORDER=3}" "b4 ${V1/BLOCK_ROWS=8/BLOCK_ROWS=4}" "p2 ${V1/TPB=1/TPB=2}"
)

# QUICK=1: the short check (~40 s of GPU, no ncu, no transpose run): the stream-K candidates
# (fixed: the workspace's counters no longer sized by the grid) and q2 at the shapes where they
# were wrong, 4096^3 with the old-vs-new control (w1 one body, w1v two bodies: BVPATHS=2, w1o
# the template before split-K), and the random-size sweep
if [ -n "${QUICK:-}" ]; then
  MM=(
    "w1 $W SPLITK=1" "w1v $W SPLITK=1 BVPATHS=2" "w1o $W SPLITK=1|old"
    "wk $W SPLITK=1 STREAMK=1" "w2k $W SPLITK=2 STREAMK=1" "w4k $W SPLITK=4 STREAMK=1" "w8k $W SPLITK=8 STREAMK=1"
    "q2 $T128 SPLITK=2" "qk $T128 SPLITK=1 STREAMK=1" "q4k $T128 SPLITK=4 STREAMK=1" "tk $T256 SPLITK=1 STREAMK=1"
  )
  TR=("v1 $V1")  # built (the driver needs a table), not run
  SHAPES_MM=${SHAPES_MM:-4096x4096x4096,1000x1003x999,1100x1284x1060,1024x8192x2048,8192x8192x256,16384x128x4096,256x256x16384,4097x4097x4097,1000x1004x1000,3000x3000x3000}
  REPS_MM=${REPS_MM:-9}
  NO_NCU=1
fi

# MM_CANDS / TR_CANDS: a file of candidates instead of the lists above, one per line, "NAME
# NAME=VALUE ..." (# starts a comment): to time configurations a search has not reached
cands() { grep -v '^[[:space:]]*\(#\|$\)' "$1"; }
if [ -n "${MM_CANDS:-}" ]; then mapfile -t MM < <(cands "$MM_CANDS"); fi
if [ -n "${TR_CANDS:-}" ]; then mapfile -t TR < <(cands "$TR_CANDS"); fi

# the template before split-K, for w1o (the same configuration as w1: is the aligned path as fast?)
OLD_REV=${OLD_REV:-169c80106e}
if [ -n "${OLD_TEMPLATE:-}" ]; then cp "$OLD_TEMPLATE" "$B/gen/matmul_old.cu"
elif ! git show "$OLD_REV:templates/matmul.cu" >"$B/gen/matmul_old.cu" 2>/dev/null; then
  echo "note: no git and no OLD_TEMPLATE: w1o (the old template) left out"
  rm -f "$B/gen/matmul_old.cu"
  for i in "${!MM[@]}"; do [[ ${MM[$i]} == *"|old" ]] && unset 'MM[i]'; done
  MM=("${MM[@]}")
fi

cat >"$B/gen/ts_configs.h" <<'EOF'
// generated by bench/templates_session.sh: the configurations built into one process
#include <cstddef>
struct ts_mm_config {  // lower case: the -D names are macros
  const char *name, *params;
  int bm, bn, bk, splitk, streamk, legacy;  // legacy: the old template (no workspace arguments)
  unsigned threads;
  size_t smem;
  const void *fn;
};
struct ts_tr_config { const char *name, *params; int tile, rows, tpb, align, wide; unsigned bx, by; const void *fn; };
extern ts_mm_config ts_mm_configs[];
extern const int ts_mm_nconfigs;
extern ts_tr_config ts_tr_configs[];
extern const int ts_tr_nconfigs;
EOF
# unit SPACE INDEX NAME DEFS...[|old]: one configuration's translation unit
unit() {
  local space=$1 i=$2 name=$3 d f tpl legacy=0
  shift 3
  local defs="$*"
  tpl="$ROOT/templates/$([ "$space" = mm ] && echo matmul || echo transpose).cu"
  if [[ $defs == *"|old" ]]; then defs=${defs%|old}; tpl="$B/gen/matmul_old.cu"; legacy=1; fi
  f="$B/gen/${space}_$i.cu"
  echo "// $name: $defs$([ $legacy = 1 ] && echo " (the template before split-K)")" >"$f"
  for d in $defs; do echo "#define ${d%%=*} ${d#*=}" >>"$f"; done
  if [ "$space" = mm ]; then
    cat >>"$f" <<EOF
#ifndef STREAMK
#define STREAMK 0
#endif
#define matmul ts_mm_kernel_$i
#include "$tpl"
#undef matmul
#include "ts_configs.h"
ts_mm_config ts_mm_info_$i(void) {
  size_t smem = (size_t)MM_NBUF * MM_BUF * 4;
  if ((SPLITK > 1 || STREAMK > 0) && (size_t)BM * BN * 4 > smem) smem = (size_t)BM * BN * 4;
  ts_mm_config c = {"$name", "$defs", BM, BN, BK, SPLITK, STREAMK, $legacy, MM_THREADS, smem, (const void *)&ts_mm_kernel_$i};
  return c;
}
EOF
  else
    cat >>"$f" <<EOF
#define transpose ts_tr_kernel_$i
#include "$tpl"
#undef transpose
#include "ts_configs.h"
ts_tr_config ts_tr_info_$i(void) {
  ts_tr_config c = {"$name", "$defs", TILE, BLOCK_ROWS, TPB, ALIGN, WIDE, TILE ? TILE / VEC : 32, BLOCK_ROWS, (const void *)&ts_tr_kernel_$i};
  return c;
}
EOF
  fi
}
table() { # SPACE COUNT: the table of the generated units
  local space=$1 n=$2 i f="$B/gen/${1}_table.cu"
  echo '#include "ts_configs.h"' >"$f"
  for ((i = 0; i < n; i++)); do echo "ts_${space}_config ts_${space}_info_$i(void);" >>"$f"; done
  echo "ts_${space}_config ts_${space}_configs[] = {" >>"$f"
  for ((i = 0; i < n; i++)); do echo "  ts_${space}_info_$i()," >>"$f"; done
  echo "};" >>"$f"
  echo "const int ts_${space}_nconfigs = $n;" >>"$f"
}
for i in "${!MM[@]}"; do
  # shellcheck disable=SC2086
  unit mm "$i" ${MM[$i]}
done
for i in "${!TR[@]}"; do
  # shellcheck disable=SC2086
  unit tr "$i" ${TR[$i]}
done
table mm "${#MM[@]}"
table tr "${#TR[@]}"

echo "== building ${#MM[@]} SGEMM and ${#TR[@]} transpose configurations for $ARCH with $JOBS parallel nvcc"
t0=$(date +%s)
build_log="$B/logs/build.txt"
# the largest units first (the SGEMM ones), so that the last to finish is not a long one; ptxas
# reports resources (registers, spills) into each unit's log
for f in "$B"/gen/mm_*.cu "$B"/gen/tr_*.cu; do
  "$NVCC" -O3 -arch="$ARCH" -std=c++17 -Xptxas -v -I "$B/gen" -I bench -c -o "${f%.cu}.o" "$f" >"${f%.cu}.log" 2>&1 &
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
done
# the production launcher on a header of split-K and stream-K entries (bench/sk_header.sh; needs
# CUTUNE, the cutune binary, for `cutune header`)
if [ -n "${CUTUNE:-}" ] && [ -x "$CUTUNE" ]; then
  (bash bench/sk_header.sh "$B/sk" "$CUTUNE" && NVCC="$NVCC" CUTUNE_HEADER_DIR="$B/sk" CUTUNE_SPACES=matmul \
    bash kernels/build_nvcc.sh "${ARCH#sm_}" "$B/sk/nv") >"$B/logs/sk_build.txt" 2>&1 &
fi
"$NVCC" -O3 -arch="$ARCH" -std=c++17 -I "$B/gen" -c -o "$B/sgemm_main.o" bench/templates_sgemm.cu >"$B/logs/main_sgemm.txt" 2>&1 &
"$NVCC" -O3 -arch="$ARCH" -std=c++17 -I "$B/gen" -c -o "$B/transpose_main.o" bench/templates_transpose.cu >"$B/logs/main_transpose.txt" 2>&1 &
wait
failed=0
for f in "$B"/gen/mm_*.cu "$B"/gen/tr_*.cu; do
  { echo "== $(basename "$f") $(head -1 "$f")"; grep -E "registers|spill|error|warning" "${f%.cu}.log"; } >>"$build_log"
  [ -s "${f%.cu}.o" ] || { echo "FAILED: $(basename "$f")"; head -8 "${f%.cu}.log"; failed=1; }
done
cat "$B/logs/main_sgemm.txt" "$B/logs/main_transpose.txt" >>"$build_log"
[ $failed = 0 ] || { cp "$build_log" "$OUT/templates_build.txt"; echo "templates_session: the build failed"; exit 1; }
"$NVCC" -arch="$ARCH" -o "$B/templates_sgemm" "$B/sgemm_main.o" "$B"/gen/mm_*.o -lcublas >>"$build_log" 2>&1 ||
  { tail -20 "$build_log"; echo "templates_session: linking templates_sgemm failed"; exit 1; }
"$NVCC" -arch="$ARCH" -o "$B/templates_transpose" "$B/transpose_main.o" "$B"/gen/tr_*.o >>"$build_log" 2>&1 ||
  { tail -20 "$build_log"; echo "templates_session: linking templates_transpose failed"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
sk_built="not built (CUTUNE unset)"
[ -f "$B/logs/sk_build.txt" ] && { [ -x "$B/sk/nv/sgemm_example" ] && sk_built=built || sk_built="FAILED (logs/sk_build.txt)"; }
if [ -n "${BUILD_ONLY:-}" ]; then
  cat "$B/logs/sk_build.txt" >>"$build_log" 2>/dev/null
  cp "$build_log" "$OUT/templates_build.txt"
  echo "BUILD_ONLY: built templates_sgemm and templates_transpose (not run); the split-K launcher example: $sk_built"
  exit 0
fi

rc=0
clocks() { nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader 2>/dev/null; }
echo "GPU before: $(clocks)" >"$B/logs/gpu.txt"
t0=$(date +%s)
"$B/templates_sgemm" --reps "${REPS_MM:-15}" --sweep "${SWEEP_MM:-30}" ${SHAPES_MM:+--shapes "$SHAPES_MM"} \
  >"$B/logs/sgemm.txt" 2>&1 || rc=1
echo "GPU after the SGEMM: $(clocks)" >>"$B/logs/gpu.txt"
t1=$(date +%s)
if [ -n "${QUICK:-}" ]; then
  echo "QUICK: transpose not run" >"$B/logs/transpose.txt"
else
  "$B/templates_transpose" --reps "${REPS_TR:-30}" --sweep "${SWEEP_TR:-40}" ${SHAPES_TR:+--shapes "$SHAPES_TR"} \
    >"$B/logs/transpose.txt" 2>&1 || rc=1
fi
if [ -x "$B/sk/nv/sgemm_example" ]; then  # cutune_sgemm with its workspace: every entry right
  "$B/sk/nv/sgemm_example" 4096x4096x4096 256x256x16384 1000x1003x999 1100x1284x1060 2048x2048x2048 4097x4097x4097 \
    1x1x1 7x5x3 33x65x17 129x3x257 5x7x0 300x200x5000 >"$B/logs/sk_launcher.txt" 2>&1 || rc=1
else
  echo "production launcher on split-K entries: not built (CUTUNE unset, or logs/sk_build.txt)" >"$B/logs/sk_launcher.txt"
fi
t2=$(date +%s)

# Nsight Compute: why misaligned rows cost (DRAM and L2 traffic against the ideal, the offset
# copies apart) and whether the old template's aligned path differs from the new one's
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute*/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
TRMET="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
TRMET0="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
lts__t_sector_hit_rate.pct,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
MMMET="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,launch__registers_per_thread,\
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"
ncu_run() { # NAME METRICS FALLBACK KERNELS PROGRAM ARGS...: ncu once (again with FALLBACK if a metric is unknown)
  local name=$1 met=$2 fb=$3 k=$4
  shift 4
  local rep="$B/logs/ncu_$name"
  for m in "$met" "$fb"; do
    # the program's PROFILE lines (the launch order) come through in ncu's output
    if timeout "${NCU_TIMEOUT:-90}" "$NCU" --clock-control none -f -o "$rep" -k "regex:$k" --metrics "$m" "$@" \
      >"$rep.log" 2>&1 && "$NCU" -i "$rep.ncu-rep" --csv --page raw >"$rep.csv" 2>>"$rep.log"; then
      python3 bench/ncu_table.py "$rep.csv" "$rep.log" "$name" >"$rep.txt" 2>&1
      return 0
    fi
    echo "ncu with $m failed: $(tail -3 "$rep.log")" >>"$B/logs/ncu_errors.txt"
  done
  echo "ncu $name: failed (logs/ncu_errors.txt)" >"$rep.txt"
}
if [ -n "$NCU" ] && [ -z "${NO_NCU:-}" ]; then
  ncu_run transpose "$TRMET" "$TRMET0" "ts_tr_kernel|bench_copy|ts_copy_off" "$B/templates_transpose" \
    --profile "${NCU_TR:-8192x8192,8191x8193,12345x6789}" --only "${NCU_TR_ONLY:-v1,a8,a32}"
  ncu_run sgemm "$MMMET" "gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,launch__registers_per_thread" \
    "ts_mm_kernel" "$B/templates_sgemm" --profile "${NCU_MM:-4096x4096x4096,4097x4097x4097}" --only "${NCU_MM_ONLY:-w1,w1o,wk}"
  "$NCU" --query-metrics --chip gh100 2>/dev/null | grep -E "^lts__t_(sectors|requests)_srcunit_tex|^dram__sectors|^lts__d_" \
    >"$B/logs/ncu_metric_names.txt" || true
else
  echo "no ncu (or NO_NCU): counters skipped" >"$B/logs/ncu_transpose.txt"
fi
t3=$(date +%s)

summary="$OUT/templates_session.txt"
{
  echo "templates_session: sgemm $((t1 - t0)) s, transpose $((t2 - t1)) s, ncu $((t3 - t2)) s on $(head -1 "$B/logs/sgemm.txt")"
  cat "$B/logs/gpu.txt"
  echo "== sgemm: best candidate per shape (share of cuBLAS; w1o, the old template, is a control)"
  grep -E '^(RESIDENT|SHAPE|BEST|SUMMARY|SWEEP-FAIL)|WRONG|NONDET|FAILED|error' "$B/logs/sgemm.txt"
  echo "== sgemm: the old template (w1o) against the new (w1: one body, w1v: two) and stream-K (wk), per shape"
  grep -E '^ROW \S+ (w1|w1v|w1o|wk) ' "$B/logs/sgemm.txt" | awk '{print $2, $3, $4, $8, $9}'
  tail -1 "$B/logs/sgemm.txt"
  [ -n "${QUICK:-}" ] && { echo "== sgemm: every row (QUICK)"; grep -E '^ROW' "$B/logs/sgemm.txt" | awk '{print $2, $3, $4, $8, $9, $10}'; }
  echo "== transpose: best candidate per shape (share of cudaMemcpy)"
  grep -E '^(SHAPE|COPY|BEST|SUMMARY|SWEEP-FAIL)|WRONG|FAILED|error' "$B/logs/transpose.txt"
  echo "== transpose: v1 against the write-aligned a8, a32 at every shape"
  grep -E '^ROW \S+ (v1|a8|a32) ' "$B/logs/transpose.txt" | awk '{print $2, $3, $4, $6}'
  tail -1 "$B/logs/transpose.txt"
  echo "== the production launcher (cutune_sgemm) on split-K and stream-K entries (bench/sk_header.sh)"
  tail -4 "$B/logs/sk_launcher.txt"
  for f in transpose sgemm; do
    echo "== ncu $f"
    cat "$B/logs/ncu_$f.txt" 2>/dev/null
  done
} >"$summary"
tar -czf "$OUT/templates_session.tgz" -C "$B" logs gen
cat "$summary"
exit $rc
