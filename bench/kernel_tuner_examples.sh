#!/usr/bin/env bash
# kernel_tuner_examples.sh: cutune and Kernel Tuner 1.5 side by side, in one call on one GPU, on
# Kernel Tuner's own CUDA examples (the unchanged sources; cutune's spaces in
# examples/kernel_tuner/, Kernel Tuner's setup in bench/kernel_tuner_examples.py, as its scripts).
# Each tool gets the same wall-clock budget per example (cutune --time, Kernel Tuner random_sample
# with time_limit; a space the budget covers is measured whole by both), from cold compile caches
# (cutune's, cupy's and the driver's).
#
#   CUTUNE=build/cutune KT_SRC=.shared/kt OUT=gpu-out bash bench/kernel_tuner_examples.sh
#   QUICK=1 CUTUNE=build/cutune KT_SRC=.shared/kt OUT=gpu-out bash bench/kernel_tuner_examples.sh
#
# QUICK=1: vector_add and stencil, 5 s each (about 30 s of GPU time): that both halves measure.
# Default: all six, SECONDS_EACH (default 12) each: about 4 minutes. EXAMPLES and SECONDS_EACH
# override either.
#
# Needs: the folder of Kernel Tuner's examples/cuda (.cu files and vector_add.py) in $KT_SRC
# (default .shared/kt: the lead copies ../shared/kernel_tuner/examples/cuda there and carries it),
# Kernel Tuner's wheels in $WHEELS (default .whl; Kernel Tuner's half is skipped without them),
# python3 with numpy and cupy.
#
# Prints per example: the size of the space (cutune's count / Kernel Tuner's own), the
# configurations each tool measured (valid ones), configurations per second each (setup
# included), the best time each, and the median ratio Kernel Tuner / cutune of the times of the
# configurations both measured (with the 10-90 % range and how many); a note where Kernel Tuner
# stopped its run (a failed check) or skipped configurations over 48 KB of shared memory. Writes
# two files only: $OUT/kernel_tuner_examples.txt (the summary) and $OUT/kernel_tuner_examples.tgz
# (logs and stores).
set -uo pipefail
CUTUNE=${CUTUNE:-build/cutune}
KT_SRC=${KT_SRC:-.shared/kt}
OUT=${OUT:-gpu-out}
WHEELS=${WHEELS:-.whl}
if [ "${QUICK:-0}" = 1 ]; then
  EXAMPLES=${EXAMPLES:-"vector_add stencil"}
  SECONDS_EACH=${SECONDS_EACH:-5}
fi
EXAMPLES=${EXAMPLES:-"vector_add stencil matmul reduction pnpoly convolution"}
SECONDS_EACH=${SECONDS_EACH:-12}
W=$(mktemp -d)
mkdir -p "$OUT"
SUM="$OUT/kernel_tuner_examples.txt"
: >"$SUM"
say() { echo "$*" | tee -a "$SUM"; }
[ -f "$KT_SRC/convolution.cu" ] || { say "no Kernel Tuner examples in $KT_SRC (copy ../shared/kernel_tuner/examples/cuda there)"; exit 1; }
KT_OK=0
if ls "$WHEELS"/kernel_tuner-*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$W/site" "$WHEELS"/*.whl >"$W/pip.log" 2>&1 &&
    KT_OK=1 || say "pip install of the wheels failed (see pip.log): Kernel Tuner skipped"
else
  say "no Kernel Tuner wheels in $WHEELS: Kernel Tuner skipped"
fi
"$CUTUNE" devices 2>&1 | head -3 | tee -a "$SUM"
for e in $EXAMPLES; do
  say "== $e: ${SECONDS_EACH} s each"
  t0=$(date +%s%N)
  CUTUNE_CACHE="$W/cache-$e" timeout $((SECONDS_EACH * 3 + 120)) "$CUTUNE" run --no-progress --time "$SECONDS_EACH" \
    --results "$W/cu-$e" --kernel-path "$KT_SRC" "examples/kernel_tuner/$e.lua" >"$W/cu-$e.log" 2>&1
  rc=$?
  t1=$(date +%s%N)
  echo "cutune_ms $(( (t1 - t0) / 1000000 ))" >>"$W/cu-$e.log"
  say "cutune exit $rc"
  # where cutune's time went: its end line and the GPU's split per configuration
  grep -E "configurations measured in|^  time:|^  raced( early)?:|^  modules:" "$W/cu-$e.log" | cut -c1-300 | tee -a "$SUM"
  if [ "$KT_OK" = 1 ]; then
    (CUDA_CACHE_PATH="$W/cache-kt-$e" CUPY_CACHE_DIR="$W/cache-kt-$e/cupy" PYTHONPATH="$W/site" PYTHONUNBUFFERED=1 timeout $((SECONDS_EACH * 3 + 180)) \
      python3 bench/kernel_tuner_examples.py "$e" --src "$KT_SRC" --seconds "$SECONDS_EACH" --dump "$W/kt-$e.json") \
      >"$W/kt-$e.log" 2>&1
    say "Kernel Tuner exit $?"
    grep -h "^KT .*aborted after" "$W/kt-$e.log" | cut -c1-400 | tee -a "$SUM"
  fi
done
python3 - "$W" $EXAMPLES <<'PY' | tee -a "$SUM"
import glob, json, re, statistics, sys
w, exs = sys.argv[1], sys.argv[2:]
print("%-12s %17s %9s %9s %9s %9s %7s %11s %11s %8s %s" % ("example", "space cu/KT", "cu confs", "KT confs", "cu /s",
      "KT /s", "cu/KT", "cu best ms", "KT best ms", "KT/cu", "(10-90 %, n common)"))
notes = []
for e in exs:
    cu = {}
    for f in glob.glob("%s/cu-%s/*/*.jsonl" % (w, e)):
        for line in open(f):
            try: r = json.loads(line)
            except ValueError: continue
            if r.get("status") == "ok" and r.get("t_median"): cu[r["config"]] = r["t_median"]
    try: log = open("%s/cu-%s.log" % (w, e)).read()
    except OSError: log = ""
    m = re.search(r"cutune_ms ([0-9]+)", log)
    cs = int(m.group(1)) / 1000 if m else float("nan")
    m = re.search(r"([0-9]+) valid configurations", log)
    cspace = m.group(1) if m else "?"
    kt, ks, kspace = {}, float("nan"), "?"
    try: klog = open("%s/kt-%s.log" % (w, e)).read()
    except OSError: klog = ""
    m = re.search(r"space=([0-9]+)", klog)
    if m: kspace = m.group(1)
    m = re.search(r"aborted after ([0-9.]+) s \(([0-9]+)[^:]*: (.*)", klog)
    if m: notes.append("%s: Kernel Tuner stopped its run after %s s, %s configurations measured: %s" % (e, m.group(1), m.group(2), m.group(3)[:200]))
    m = re.search(r"smem_skipped=([1-9][0-9]*)", klog)
    if m: notes.append("%s: Kernel Tuner skipped %s configurations over 48 KB of static shared memory" % (e, m.group(1)))
    m = re.search(r"compile_ms_mean=([0-9.]+)", klog)
    if m: notes.append("%s: Kernel Tuner's mean compile %s ms" % (e, m.group(1)))
    try:
        kt = json.load(open("%s/kt-%s.json" % (w, e)))
        m = re.search(r"seconds=([0-9.]+) setup=([0-9.]+)", klog)
        ks = float(m.group(1)) + float(m.group(2))
    except (OSError, ValueError, AttributeError):
        pass
    m = re.search(r"a compile took ([0-9.]+) s on average", log)
    if m: notes.append("%s: cutune's mean compile %.0f ms" % (e, 1000 * float(m.group(1))))
    common = sorted(set(cu) & set(kt))
    rat = sorted(kt[k] / cu[k] for k in common)
    q = lambda p: rat[min(len(rat) - 1, int(p * len(rat)))] if rat else float("nan")
    cr, kr = len(cu) / cs, len(kt) / ks if kt else float("nan")
    print("%-12s %17s %9d %9d %9.1f %9.1f %7.1f %11.4f %11.4f %8.3f (%.3f-%.3f, %d)" % (e, cspace + "/" + kspace, len(cu),
          len(kt), cr, kr, cr / kr if kr > 0 else float("nan"), min(cu.values()) if cu else float("nan"),
          min(kt.values()) if kt else float("nan"), statistics.median(rat) if rat else float("nan"), q(0.1), q(0.9), len(common)))
for n in notes: print("  " + n)
PY
tar czf "$OUT/kernel_tuner_examples.tgz" -C "$W" --exclude='cache-*' --exclude=site . 2>/dev/null
rm -rf "$W"
