#!/usr/bin/env bash
# rate_session.sh: the tuning-rate figures of issue 21 on the GPU machine, in one call.
#
#   CUTUNE=build-gpu/cutune [WHEELS=DIR] [CHEAP=1] bench/rate_session.sh
#
# Steps (STEPS, default "on noov off warm matmul kt"; each run cold means a fresh cutune cache
# and a fresh NVRTC cache, CUDA_CACHE_PATH inside it):
#   on      `cutune run lua/transpose_space.lua`, no flags, cold: the judged end-to-end rate
#           (measurements/s over its three problems; racing on, automatic batches, the three
#           problems side by side: the "overlap" line and each problem's time to its last record).
#   noov    the same cold with --no-overlap (the problems one after the other, as before the
#           overlap): the rate the overlap gains against (full mode only).
#   off     the same with --race off, from the compile cache of `on` (warm: only the winners are
#           compared): per problem the winner of each run, the ratio of their times, the time of
#           each winner in the other run, and whether every row of `on`'s top-10 was timed in
#           full. CHEAP=1: the first problem only.
#   warm    racing on again from the warm compile cache: the GPU-bound rate (full mode only).
#   matmul  `cutune run lua/matmul_space.lua --problem 0`, no flags, cold: configurations/s, best.
#           CHEAP=1 adds --time 45.
#   kt      Kernel Tuner 1.5 (wheels in WHEELS; skipped without them) on the transpose space's
#           first problem for KT_SECONDS (default 40; CHEAP=1: 20), cold
#           (bench/kernel_tuner_transpose.py), against `on`'s rate on that problem.
# GPU time: ~5.5-6 minutes in full (on ~35-50 s, noov ~60 s, off ~60 s, warm ~25 s, matmul
# ~100 s, kt ~70 s with Python's start), ~2.5 minutes with CHEAP=1. Every run's "time:" lines (the GPU's split:
# load, check, timing, isolated; compile per configuration) are in the summary.
# Environment: CUTUNE (default build-gpu/cutune), OUT (default gpu-out), WHEELS (default .whl),
# STEPS, CHEAP, KT_SECONDS. Each cutune run is cut off after 400 s (CHEAP=1: 150 s). It writes
# two files: the summary $OUT/rate_session.txt (its last lines are the table) and the logs
# $OUT/rate_logs.tgz.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
CUTUNE=${CUTUNE:-build-gpu/cutune}
OUT=${OUT:-gpu-out}
WHEELS=${WHEELS:-.whl}
CHEAP=${CHEAP:-0}
STEPS=${STEPS:-on noov off warm matmul kt}
[ "$CHEAP" = 1 ] && STEPS=${STEPS/warm/} && STEPS=${STEPS/noov/}
KT_SECONDS=${KT_SECONDS:-$([ "$CHEAP" = 1 ] && echo 20 || echo 40)}
LIMIT=$([ "$CHEAP" = 1 ] && echo 150 || echo 400) # seconds one run may take (a hang costs no more)
W=${TMPDIR:-/tmp}/cutune-rate
rm -rf "$W" && mkdir -p "$OUT" "$W"
OUT=$(cd "$OUT" && pwd)
SUM="$OUT/rate_session.txt"
: > "$SUM"
TS=${TSPACE:-lua/transpose_space.lua} # TSPACE/TNAME: another space, for a smoke test through the fake driver
TNAME=${TNAME:-transpose}
say() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$SUM"; }
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
rows=()
row() { rows+=("$(printf '%-44s %s' "$1" "$2")"); }

# run NAME CACHE RESULTS ARGS...: one cutune run, its log in $W/NAME.log, its notes in the summary
run() {
  local name=$1 cache=$2 res=$3; shift 3
  say "$name: cutune run $* (cache $(basename "$cache"))"
  CUTUNE_CACHE=$cache CUDA_CACHE_PATH=$cache/nvrtc timeout "$LIMIT" "$CUTUNE" run --no-progress --results "$res" "$@" \
    > "$W/$name.log" 2>&1
  say "$name exit $?"
  grep -E "^problem .*: [0-9]+ measured|^  time:|^  raced( early)?:|^  modules:|^overlap|side by side:|one after the other|configurations measured in" \
    "$W/$name.log" | tee -a "$SUM"
}
rate_of() { sed -n 's/.*configurations measured in \([0-9.]*\) s (\([0-9.]*\) per second.*/\2 (\1 s)/p' "$1" | tail -1; }

if want on; then
  run on "$W/cache-t" "$W/r-on" $TS
  row "transpose cold, racing on: measurements/s" "$(rate_of "$W/on.log") (target >= 225)"
  ov=$(sed -n 's/^overlap: \([0-9]*\) problems measured side by side in \([0-9.]*\) s; the GPU worked \([0-9]*\) %.*/\1 problems in \2 s, GPU busy \3 %/p' "$W/on.log")
  row "transpose cold: the overlap" "${ov:-none (the problems went one after the other)}"
  # each problem: measured / its time to its last record
  while read -r p n t; do row "  problem $p: measurements/s to its last record" "$(awk -v n="$n" -v t="$t" 'BEGIN { printf "%.1f (%d in %.1f s)", n / t, n, t }')"; done \
    < <(sed -n 's/^problem \([^ ]*\): \([0-9]*\) measured.*, \([0-9.]*\) s\( (.*\)\{0,1\}$/\1 \2 \3/p' "$W/on.log")
fi
if want noov; then
  run noov "$W/cache-n" "$W/r-noov" --no-overlap $TS
  row "transpose cold, --no-overlap: measurements/s" "$(rate_of "$W/noov.log") (the problems one after the other)"
fi
if want off; then
  P=(); [ "$CHEAP" = 1 ] && P=(--problem 0)
  run off "$W/cache-t" "$W/r-off" --race off "${P[@]}" $TS
  python3 - "$W/r-on" "$W/r-off" "$TNAME" <<'EOF' | tee -a "$SUM"
import json, os, sys
def load(d):
    recs = {}
    for dd, _, fs in os.walk(d):
        for f in fs:
            if f == sys.argv[3] + ".jsonl":
                for ln in open(os.path.join(dd, f)):
                    r = json.loads(ln)
                    recs[(r["problem"], r["config"])] = r
    return recs
on, off = load(sys.argv[1]), load(sys.argv[2])
worst = 0
for prob in sorted({p for p, _ in off}):
    def ok(recs):
        return sorted((r for (p, _), r in recs.items() if p == prob and r["status"] == "ok"), key=lambda r: r["time_ms"]["median"])
    a, b = ok(on), ok(off)
    if not a or not b:
        print(f"  {prob}: no ok records in one of the runs"); continue
    wa, wb = a[0], b[0]
    ratio = wa["time_ms"]["median"] / wb["time_ms"]["median"]
    worst = max(worst, abs(ratio - 1))
    cross_a = off.get((prob, wa["config"]), {}).get("time_ms", {}).get("median")
    top_raced = sum("raced_above" in r["time_ms"] for r in a[:10])
    raced = sum("raced_above" in r["time_ms"] for r in a)
    print(f"  {prob}: racing on  {wa['time_ms']['median'] * 1e3:.2f} us {wa['config']}")
    print(f"  {prob}: racing off {wb['time_ms']['median'] * 1e3:.2f} us {wb['config']}")
    print(f"  {prob}: on/off winner time {ratio:.4f}; on's winner in the off run "
          f"{cross_a * 1e3 if cross_a else float('nan'):.2f} us; raced {raced} of {len(a)}; "
          f"raced rows in on's top-10: {top_raced} (must be 0); top-10 configs shared: "
          f"{len({r['config'] for r in a[:10]} & {r['config'] for r in b[:10]})}")
print(f"WORST {worst * 100:.2f}")
EOF
  row "transpose winners, racing on vs off" "$(sed -n 's/^WORST //p' "$SUM" | tail -1) % apart at most (target <= 0.5)"
  row "transpose racing off (warm): measurements/s" "$(rate_of "$W/off.log")"
fi
if want warm; then
  run warm "$W/cache-t" "$W/r-warm" $TS
  row "transpose warm, racing on: measurements/s" "$(rate_of "$W/warm.log") (GPU-bound)"
fi
if want matmul; then
  T=(); [ "$CHEAP" = 1 ] && T=(--time 45)
  run matmul "$W/cache-m" "$W/r-mm" lua/matmul_space.lua --problem 0 "${T[@]}"
  b=$(python3 bench/best_config.py "$W/r-mm" matmul "K=4096,M=4096,N=4096" 2>/dev/null | cut -f3-4)
  say "matmul best: ${b:-none} (ms, GFLOP/s)"
  grep -A4 "configurations passed" "$W/matmul.log" | head -5 | tee -a "$SUM"
  row "matmul default cold: configurations/s" "$(rate_of "$W/matmul.log") (target >= 40); best ${b:-none}"
fi
if want kt; then
  if ls "$WHEELS"/kernel_tuner-*.whl > /dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$W/site" "$WHEELS"/*.whl \
      > "$W/pip.log" 2>&1 || say "pip install of the wheels failed (see pip.log)"
    say "kt: Kernel Tuner on the transpose space, ${KT_SECONDS} s, cold"
    (cd "$W" && CUDA_CACHE_PATH="$W/cache-kt-nvrtc" PYTHONPATH="$W/site" PYTHONUNBUFFERED=1 timeout $((KT_SECONDS + 150)) \
      python3 "$OLDPWD/bench/kernel_tuner_transpose.py" --seconds "$KT_SECONDS") > "$W/kt.log" 2>&1
    say "kt exit $?"
    grep -vE "^\s*$" "$W/kt.log" | tail -4 | tee -a "$SUM"
    kt=$(sed -n 's/.* \([0-9.]*\) configurations\/s.*/\1/p' "$W/kt.log" | tail -1)
    # cutune's configurations/s on the same problem: its first problem's line of the `on` run
    ct=$(sed -n 's/^problem [^ ]*: \([0-9]*\) measured.*, \([0-9.]*\) s\( (.*\)\{0,1\}$/\1 \2/p' "$W/on.log" 2>/dev/null | head -1)
    ratio=$(awk -v c="$ct" -v k="${kt:-0}" 'BEGIN { split(c, x, " "); if (k > 0 && x[2] > 0) printf "%.0f", x[1] / x[2] / k; else print "?" }')
    row "Kernel Tuner transpose: configurations/s" "${kt:-?}; cutune (on, problem 1) / Kernel Tuner = ${ratio}x (target >= 100)"
    # per measurement: the three problems side by side against Kernel Tuner's one (the same work per measurement)
    all=$(sed -n 's/.*configurations measured in [0-9.]* s (\([0-9.]*\) per second.*/\1/p' "$W/on.log" 2>/dev/null | tail -1)
    row "  per measurement" "cutune (on, all problems) ${all:-?}/s / Kernel Tuner = $(awk -v a="${all:-0}" -v k="${kt:-0}" 'BEGIN { if (k > 0 && a > 0) printf "%.0f", a / k; else print "?" }')x"
  else
    say "kt: no Kernel Tuner wheels in $WHEELS: skipped"
  fi
fi
(cd "$W" && tar -czf "$OUT/rate_logs.tgz" ./*.log r-* 2>/dev/null)
{
  echo
  echo "rate_session summary ($(date -u +%F\ %H:%M) UTC, $("$CUTUNE" devices 2>/dev/null | head -1))"
  for r in "${rows[@]}"; do echo "  $r"; done
} | tee -a "$SUM"
