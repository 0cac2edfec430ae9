#!/usr/bin/env bash
# hgemm_session.sh: the tensor-core GEMM work on the GPU machine (an H200), one call per phase.
#
#   bench/hgemm_session.sh check|tune|ship|explain
#
# check (about 1.5-2 minutes): what works and how fast, before any tuning.
#   1. bench/hgemm_build.sh: every configuration of bench/hgemm_configs.txt (wgmma with and without
#      a producer warpgroup, setmaxnreg, WAITG, the three swizzles; mma.sync, the launcher's
#      fallback among them) built with nvcc for sm_90a, in parallel; bench/hgemm_sass.sh on them
#      (HGMMA for wgmma, HMMA and LDSM for mma.sync, no LDL/STL).
#   2. each checked against a float64 reference at ragged sizes (8-, 4- and 2-byte aligned
#      operands, K < BK, split-K) and at the judged 4096^3 (bench/hgemm_bench.cu --check-only).
#   3. compute-sanitizer (memcheck, racecheck, synccheck) on one small case of each path.
#   4. each timed at 4096^3 against cublasGemmEx (BF16 in, CUBLAS_COMPUTE_32F): TFLOP/s, % cuBLAS.
#   QUICK=1 (about 40-60 s): only the TMA=1 lines of bench/hgemm_configs.txt and the call-2 best
#   (WS=0 128x256, the control), the same checks, the sanitizers on the first TMA configuration
#   and the control, 4096^3 timed; writes only $OUT/hgemm_session.txt and $OUT/hgemm_logs.tgz.
# tune (about 5.5 minutes): `cutune run lua/hgemm_space.lua`, the default (no flags) from a cold
#   compile cache (NVRTC's too), on its three problems (4096^3 judged, 1000x1003x999,
#   256x256x16384): the best per problem, % cuBLAS and the rate (judged: >= 80 % of cuBLAS at
#   4096^3, >= 20 configurations/s); then `cutune header` -> hgemm.h. The store and the header are
#   kept in build-hgemm/ for `ship` (a machine still warm) and come back in $OUT.
# ship (about 3-4 minutes): the production side from that header (or $HEADER): the launcher and
#   kernels/example/hgemm_example built by kernels/build_nvcc.sh (sm_90a for the wgmma entries),
#   checked at every size of its list, and timed against the header's records (judged: within 2 %
#   at 4096^3: `--within 0.02`; the two small problems for information); bench/hgemm.sh, the launcher against cublasGemmEx over the
#   shape list (judged: geometric mean >= 0.75); compute-sanitizer on the shipped configurations.
# explain (about 2-3 minutes): `cutune explain` on the tune phase's store at 4096^3: the top 2 and
#   the best of each value of the parameter that mattered most under Nsight Compute (tensor-pipe
#   utilisation, bank conflicts, stalls) and the sanitizers on the smallest problem -> explain.txt.
#
# Every program runs under `timeout` (a hung kernel: exit 124, said in the summary).
# Environment: CUTUNE (default build/cutune), OUT (default gpu-out), HEADER (ship: default
# build-hgemm/hgemm.h), NVCC, JOBS (parallel nvcc, default nproc). Summary: $OUT/hgemm_session.txt
# (the lines to read), logs: $OUT/hgemm_logs.tgz; tune also writes $OUT/hgemm.jsonl (for
# results/NVIDIA_H200/hgemm.jsonl) and $OUT/hgemm.h (for results/hgemm.h).
set -uo pipefail
cd "$(dirname "$0")/.."
CUTUNE=${CUTUNE:-build/cutune}
OUT=${OUT:-gpu-out}
W=build-hgemm
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export NVCC JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT" "$W/logs"
SUM="$OUT/hgemm_session.txt"
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
say() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$SUM"; }
pack() { tar czf "$OUT/hgemm_logs.tgz" -C "$W" logs 2>/dev/null; }
trap pack EXIT
# small and ragged sizes: aligned; N % 8 = 4 and K % 8 = 4 (8-byte pieces); K % 8 = 2 (4-byte);
# odd N and K (element loads); K < 16; a long K over few tiles (split-K)
CHECK_SHAPES=256x512x384,1000x1003x999,1100x1284x1060,130x78x98,257x264x136,33x65x17,64x64x8,256x256x8192

sanitize() { # label binary args...: memcheck, racecheck, synccheck; one line each
  local label=$1; shift
  for tool in memcheck racecheck synccheck; do
    local log="$W/logs/sanitize_${label}_$tool.txt"
    timeout 120 "$SAN" --tool "$tool" --error-exitcode 9 "$@" > "$log" 2>&1
    local rc=$?
    say "sanitizer $tool on $label: exit $rc, $(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY|Error' "$log" || echo 'no summary line')"
  done
}

# the call-2 best (71 % of cuBLAS at 4096^3): QUICK=1's control
CONTROL='-DWG=1 -DBM=128 -DBN=256 -DBK=64 -DWM=64 -DWN=256 -DSTAGES=4 -DSWZ=128 -DWS=0 -DWAITG=1 -DREGS=0 |'

check() {
  local cfgs="$W/configs.txt" csv="$OUT/hgemm_check.csv"
  if [ "${QUICK:-0}" = 1 ]; then
    { grep -- '-DTMA=1' bench/hgemm_configs.txt; grep -F -- "$CONTROL" bench/hgemm_configs.txt; } > "$cfgs"
    csv="$W/logs/hgemm_check.csv"
  else
    cp bench/hgemm_configs.txt "$cfgs"
  fi
  say "check${QUICK:+ (QUICK=$QUICK)}: building $(grep -c '^-D' "$cfgs") configurations for sm_90a ($JOBS nvcc at a time)"
  local t0=$SECONDS
  bash bench/hgemm_build.sh "$W/check" 90a < "$cfgs" > "$W/logs/build.txt" 2>&1 ||
    { say "build FAILED: $(tail -5 "$W/logs/build.txt")"; return 1; }
  say "built in $((SECONDS - t0)) s; spills: $(grep -ci spill "$W/logs/build.txt") lines"
  CUOBJDUMP=${CUOBJDUMP:-} bash bench/hgemm_sass.sh "$W"/check/gen/cfg_*.o > "$W/logs/sass.txt" 2>&1
  cat "$W/logs/sass.txt" >> "$SUM"
  local B="$W/check/hgemm_bench"
  say "check: every configuration at $CHECK_SHAPES and 4096^3 (split-K by the launcher's rule, and --split 3)"
  timeout 150 "$B" --check-only --shapes "$CHECK_SHAPES,4096x4096x4096" > "$W/logs/check.txt" 2>&1
  say "checks: exit $?, $(grep -c ' ok ' "$W/logs/check.txt") ok, $(grep -c WRONG "$W/logs/check.txt") WRONG"
  timeout 60 "$B" --check-only --split 3 --shapes 256x512x384,1000x1003x999 > "$W/logs/check_split3.txt" 2>&1
  say "checks with SPLITK=3: exit $?, $(grep -c ' ok ' "$W/logs/check_split3.txt") ok, $(grep -c WRONG "$W/logs/check_split3.txt") WRONG"
  grep WRONG "$W/logs/check.txt" "$W/logs/check_split3.txt" | head -10 >> "$SUM"
  # one small case of each path: the first wgmma configuration (producer warpgroup, setmaxnreg),
  # the first wgmma one without a producer, the launcher's mma.sync fallback
  local wsi w0i mmai
  # (the first TMA=1 one: its tensor copies, and its cp.async producer at 130x78x98)
  local tmai
  tmai=$(grep -v '^#' "$cfgs" | grep -n -- '-DTMA=1' | head -1 | cut -d: -f1)
  wsi=$(grep -v '^#' "$cfgs" | grep -n -- '-DWS=1' | grep -v -- '-DTMA=1' | head -1 | cut -d: -f1)
  w0i=$(grep -v '^#' "$cfgs" | grep -n -- '-DWG=1.*-DWS=0' | head -1 | cut -d: -f1)
  mmai=$(grep -v '^#' "$cfgs" | grep -n -- '-DWG=0' | head -1 | cut -d: -f1)
  [ -n "$tmai" ] && sanitize wgmma_tma "$B" --check-only --only $((tmai - 1)) --shapes 256x256x256,264x520x136,130x78x98
  [ -n "$wsi" ] && sanitize wgmma_ws "$B" --check-only --only $((wsi - 1)) --shapes 256x256x256,130x78x98
  sanitize wgmma "$B" --check-only --only $((w0i - 1)) --shapes 256x256x256,130x78x98
  [ -n "$mmai" ] && sanitize mma_sync "$B" --check-only --only $((mmai - 1)) --shapes 256x256x256,130x78x98
  say "check: 4096^3 against cublasGemmEx"
  timeout 120 "$B" --shapes 4096x4096x4096 --reps 20 --csv "$csv" > "$W/logs/time4096.txt" 2>&1
  grep -E "ms .*TFLOP/s|best:" "$W/logs/time4096.txt" | sed 's/ (max rel.*//' >> "$SUM"
  tail -3 "$W/logs/time4096.txt" | tee -a "$SUM"
}

tune() {
  local R="$W/results" C="$W/cache-tune"
  rm -rf "$R" "$C"
  say "tune: cutune run lua/hgemm_space.lua (the default: no flags), cold (cutune's and NVRTC's caches empty)"
  CUTUNE_CACHE="$C" CUDA_CACHE_PATH="$C/nvrtc" timeout -s INT 540 "$CUTUNE" run --no-progress --results "$R" \
    lua/hgemm_space.lua > "$W/logs/tune.txt" 2>&1
  say "run: exit $? (3: some configurations failed, which the tables list; 130: stopped at 540 s, the store kept)"
  grep -E "cuBLAS GemmEx|^problem .*measured|configurations measured in|time:|modules:" "$W/logs/tune.txt" | tee -a "$SUM"
  # the first rows of each problem's table
  awk '/^== hgemm, problem/ { show = 8 } show > 0 { print; show-- }' "$W/logs/tune.txt" | tee -a "$SUM"
  grep -A3 "failures:" "$W/logs/tune.txt" | head -20 >> "$SUM"
  local store
  store=$(find "$R" -name hgemm.jsonl | head -1)
  [ -n "$store" ] || { say "no store written"; return 1; }
  cp "$store" "$OUT/hgemm.jsonl"
  python3 - "$store" >> "$SUM" <<'PY'
import json, sys, collections
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
st = collections.Counter(r["status"] for r in recs)
print("records:", len(recs), dict(st))
for p in sorted({r["problem"] for r in recs}):
    ok = [r for r in recs if r["problem"] == p and r["status"] == "ok"]
    if not ok: continue
    b = min(ok, key=lambda r: r["t_median"])
    wg = collections.Counter(r["params"]["WG"] for r in ok)
    print("best at %s: %.4f ms, %.1f TFLOP/s, %.1f %% of cuBLAS: %s (ok records per WG: %s)" % (
        p, b["t_median"], b["gflops"] / 1e3, 100 * (b.get("cublas_share") or float("nan")), b["config"], dict(wg)))
PY
  "$CUTUNE" header lua/hgemm_space.lua "$R" -o "$W/hgemm.h" > "$W/logs/header.txt" 2>&1
  say "header: exit $?, $(grep -c 'cutune-config' "$W/hgemm.h" 2>/dev/null) shipped configurations -> $W/hgemm.h"
  cp "$W/hgemm.h" "$OUT/hgemm.h" 2>/dev/null
}

ship() {
  local H=${HEADER:-$W/hgemm.h}
  [ -f "$H" ] || { say "ship: no header $H (run the tune phase first, or give HEADER=)"; return 1; }
  grep 'cutune-config' "$H" >> "$SUM"
  say "ship: kernels/build_nvcc.sh 90 (hgemm: sm_90a) from $H"
  local t0=$SECONDS
  CUTUNE_SPACES=hgemm CUTUNE_HEADER_DIR="$(dirname "$H")" bash kernels/build_nvcc.sh 90 "$W/nv" > "$W/logs/ship_build.txt" 2>&1 ||
    { say "launcher build FAILED: $(tail -5 "$W/logs/ship_build.txt")"; return 1; }
  say "built in $((SECONDS - t0)) s"
  CUOBJDUMP=${CUOBJDUMP:-} bash bench/hgemm_sass.sh "$W/nv/hgemm_example" >> "$SUM" 2>&1
  timeout 120 "$W/nv/hgemm_example" > "$W/logs/example.txt" 2>&1
  say "hgemm_example (its sizes, checked): exit $? (0: every check passed)"
  grep -E "WRONG|outside|overwritten" "$W/logs/example.txt" | head -20 >> "$SUM"
  tail -1 "$W/logs/example.txt" | tee -a "$SUM"
  timeout 60 "$W/nv/hgemm_example" --time --within 0.02 4096x4096x4096 > "$W/logs/example_4096.txt" 2>&1
  say "hgemm_example --time --within 0.02 4096x4096x4096: exit $? (judged: 0, the launcher within 2 % of cutune's time)"
  grep -E "config|ms" "$W/logs/example_4096.txt" | tee -a "$SUM"
  timeout 60 "$W/nv/hgemm_example" --time 1000x1003x999 256x256x16384 > "$W/logs/example_small.txt" 2>&1
  grep -E "ms" "$W/logs/example_small.txt" >> "$SUM"
  sanitize shipped "$W/nv/hgemm_example" 256x256x512 130x78x98 33x65x17 256x256x8192
  say "bench/hgemm.sh: the launcher against cublasGemmEx over the shape list"
  HEADER="$H" OUT="$W/bench" timeout 300 bash bench/hgemm.sh --reps 20 > "$W/logs/hgemm_bench.txt" 2>&1
  say "bench: exit $?"
  grep -E "best:|geometric|FAILED|all checks" "$W/logs/hgemm_bench.txt" | tee -a "$SUM"
  cp "$W/bench/hgemm_bench.csv" "$OUT/" 2>/dev/null
}

explain() {
  local R="$W/results"
  [ -d "$R" ] || { say "explain: no store in $R (run the tune phase first)"; return 1; }
  say "explain: cutune explain lua/hgemm_space.lua --top 2 --sanitize (ncu at 4096^3, the sanitizers on the smallest problem)"
  timeout 540 "$CUTUNE" explain lua/hgemm_space.lua --results "$R" --top 2 --sanitize --tool-timeout 150 > "$OUT/explain.txt" 2>&1
  say "explain: exit $? (3: ncu cannot read the counters here; 4: a sanitizer flagged a configuration)"
  grep -E "^  #|reading|tensor|bank|stall" "$OUT/explain.txt" | head -40 >> "$SUM"
  cp "$R"/*/hgemm.explain.jsonl "$OUT/" 2>/dev/null
}

phase=${1:-}
case "$phase" in
  check) check ;;
  tune) tune ;;
  ship) ship ;;
  explain) explain ;;
  *) echo "usage: bench/hgemm_session.sh check|tune|ship|explain (see its header)" >&2; exit 2 ;;
esac
say "done: $phase"
