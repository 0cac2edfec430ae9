#!/usr/bin/env bash
# kernel_tuner_examples.sh: cutune and Kernel Tuner 1.5 side by side, in one call on one GPU, on
# Kernel Tuner's own CUDA examples (the unchanged sources; cutune's spaces in
# examples/kernel_tuner/, Kernel Tuner's setup in bench/kernel_tuner_examples.py, as its scripts).
# Each tool gets the same wall-clock budget per example (cutune --time, Kernel Tuner random_sample
# with time_limit; a space the budget covers is measured whole by both), from a cold compile cache.
#
#   CUTUNE=build/cutune KT_SRC=.shared/kt OUT=gpu-out bash bench/kernel_tuner_examples.sh
#
# Needs: the folder of Kernel Tuner's examples/cuda (.cu files and vector_add.py) in $KT_SRC
# (default .shared/kt: the lead copies ../shared/kernel_tuner/examples/cuda there and carries it),
# Kernel Tuner's wheels in $WHEELS (default .whl; Kernel Tuner's half is skipped without them),
# python3 with numpy and cupy. Environment: EXAMPLES (default all six), SECONDS_EACH (default 12:
# the budget of each tool per example; about 4 minutes of GPU time for all six with setup).
# A first, cheap validation call: EXAMPLES="vector_add stencil" SECONDS_EACH=5 (about 40 s).
#
# Prints per example: configurations each tool measured (valid ones), configurations per second
# each, the best time each, and the median ratio Kernel Tuner / cutune of the times of the
# configurations both measured (with the 10-90 % range and how many). Summary:
# $OUT/kernel_tuner_examples.txt; logs and stores: $OUT/kernel_tuner_examples.tgz.
set -uo pipefail
CUTUNE=${CUTUNE:-build/cutune}
KT_SRC=${KT_SRC:-.shared/kt}
OUT=${OUT:-gpu-out}
WHEELS=${WHEELS:-.whl}
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
  if [ "$KT_OK" = 1 ]; then
    (CUDA_CACHE_PATH="$W/cache-kt-$e" PYTHONPATH="$W/site" PYTHONUNBUFFERED=1 timeout $((SECONDS_EACH * 3 + 180)) \
      python3 bench/kernel_tuner_examples.py "$e" --src "$KT_SRC" --seconds "$SECONDS_EACH" --dump "$W/kt-$e.json") \
      >"$W/kt-$e.log" 2>&1
    say "Kernel Tuner exit $?"
  fi
done
python3 - "$W" $EXAMPLES <<'PY' | tee -a "$SUM"
import glob, json, re, statistics, sys
w, exs = sys.argv[1], sys.argv[2:]
print("%-12s %9s %9s %9s %9s %11s %11s %8s %s" % ("example", "cu confs", "KT confs", "cu /s", "KT /s", "cu best ms",
      "KT best ms", "KT/cu", "(10-90 %, n common)"))
for e in exs:
    cu = {}
    for f in glob.glob("%s/cu-%s/*/*.jsonl" % (w, e)):
        for line in open(f):
            try: r = json.loads(line)
            except ValueError: continue
            if r.get("status") == "ok" and r.get("t_median"): cu[r["config"]] = r["t_median"]
    log = open("%s/cu-%s.log" % (w, e)).read()
    m = re.search(r"cutune_ms ([0-9]+)", log)
    cs = int(m.group(1)) / 1000 if m else float("nan")
    kt, ks = {}, float("nan")
    try:
        kt = json.load(open("%s/kt-%s.json" % (w, e)))
        m = re.search(r"seconds=([0-9.]+) setup=([0-9.]+)", open("%s/kt-%s.log" % (w, e)).read())
        ks = float(m.group(1)) + float(m.group(2))
    except (OSError, ValueError, AttributeError):
        pass
    common = sorted(set(cu) & set(kt))
    rat = sorted(kt[k] / cu[k] for k in common)
    q = lambda p: rat[min(len(rat) - 1, int(p * len(rat)))] if rat else float("nan")
    print("%-12s %9d %9d %9.1f %9.1f %11.4f %11.4f %8.3f (%.3f-%.3f, %d)" % (e, len(cu), len(kt), len(cu) / cs,
          len(kt) / ks if kt else float("nan"), min(cu.values()) if cu else float("nan"),
          min(kt.values()) if kt else float("nan"), statistics.median(rat) if rat else float("nan"), q(0.1), q(0.9), len(common)))
PY
tar czf "$OUT/kernel_tuner_examples.tgz" -C "$W" --exclude='cache-*' --exclude=site . 2>/dev/null
rm -rf "$W"
