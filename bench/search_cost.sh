#!/usr/bin/env bash
# The search strategies' own CPU time per proposal (ask + tell), CPU only, no GPU:
#   bench/search_cost.sh [OUTDIR]        (default /tmp/cutune-search-cost)
# 1. a synthetic Kernel Tuner cache of 100,000 configurations (5 parameters of 10 values, a
#    smooth bowl with interactions; generated here with python3), 2,000 evaluations, 1 repeat;
# 2. the shared convolution A100 cache (18,432 configurations) when ${CUTUNE_SHARED:-../shared} has it.
# Output: `cutune score --profile` tables (ms per proposal around 10, 50, 200, 1000 and 2000
# evaluations) in OUTDIR/cost_100k.txt and OUTDIR/cost_conv.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-/tmp/cutune-search-cost}
BIN=${CUTUNE_BIN:-build/cutune}
mkdir -p "$OUT"
big="$OUT/synthetic_100k.json.gz"
if [ ! -s "$big" ]; then
  python3 - "$big" <<'PY'
import gzip, json, math, random, sys
random.seed(1)
vals = list(range(10))
names = ["a", "b", "c", "d", "e"]
cache = {}
for i in range(100000):
    x = [(i // 10 ** k) % 10 for k in range(5)]
    t = 1 + sum((x[k] - 3 - k * 0.5) ** 2 * (k + 1) * 0.05 for k in range(5)) + 0.3 * math.sin(x[0] * x[1])
    t *= 1 + 0.02 * random.random()
    e = {n: v for n, v in zip(names, x)}
    e.update(time=t, times=[t, t], compile_time=200 + 20 * x[4], benchmark_time=20 * t)
    cache[",".join(map(str, x))] = e
root = dict(device_name="synthetic", kernel_name="bowl100k", tune_params_keys=names,
            tune_params={n: vals for n in names}, objective="time", cache=cache)
with gzip.open(sys.argv[1], "wt") as f:
    json.dump(root, f)
PY
fi
strats=${STRATEGIES:-random,ga,bo,bandit,hybrid}
"$BIN" score --strategies "$strats" --repeats 1 --budget-max 2000 --profile --jobs 1 --svg "$OUT/cost_100k.svg" "$big" \
  | tee "$OUT/cost_100k.txt"
conv=${CUTUNE_SHARED:-../shared}/data/tuning-caches/convolution/A100.json.gz
if [ -f "$conv" ]; then
  "$BIN" score --strategies "$strats" --repeats 1 --budget-max 2000 --profile --jobs 1 --svg "$OUT/cost_conv.svg" "$conv" \
    | tee "$OUT/cost_conv.txt"
fi
