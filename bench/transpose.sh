#!/usr/bin/env bash
# transpose.sh: the transpose benchmark, run on the GPU machine from anywhere in the repository.
#
#   1. `cutune run lua/transpose_space.lua --results $RESULTS`, timed end to end
#      -> tuning rate = configurations measured / wall seconds;
#   2. the winner at 8192x8192 (least t_median among status "ok" records) from
#      $RESULTS/<device>/transpose.jsonl;
#   3. bench/transpose_bench.cu built with the winner's -D flags (and cuBLAS), run: the table of
#      cudaMemcpy D2D, float4 copy, cublasSgeam, the seed's kernels and cutune's best, side by side.
#
# Usage: bench/transpose.sh [--no-tune] [--sizes 8192,4096,16384] [--reps 50]
#   --no-tune   skip step 1 and take the winner from the existing results
# Environment: CUTUNE (default build/cutune), RESULTS (default results), OUT (default
#   build/bench: log, CSV, binary), NVCC (default nvcc), ARCH (default sm_90),
#   CUTUNE_ARGS (extra arguments for `cutune run`).
set -euo pipefail

die() { echo "transpose.sh: $*" >&2; exit 1; }

cd "$(dirname "$0")/.."
CUTUNE=${CUTUNE:-build/cutune}
RESULTS=${RESULTS:-results}
OUT=${OUT:-build/bench}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
SPACE=lua/transpose_space.lua
PROBLEM="M=8192,N=8192"

tune=1
bench_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-tune) tune=0 ;;
    --sizes|--reps) [ $# -ge 2 ] || die "$1 needs a value"; bench_args+=("$1" "$2"); shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done

command -v python3 >/dev/null || die "python3 is needed to read the results"
command -v "$NVCC" >/dev/null || die "nvcc not found (set NVCC=/path/to/nvcc)"
# cuBLAS is found at run time through the toolkit that built the program.
CUDA_LIB=$(cd "$(dirname "$(command -v "$NVCC")")/.." && pwd)/lib64
mkdir -p "$OUT" "$RESULTS"

# Lines per transpose store ({path: count}), so that the records this run appends can be told apart.
snapshot() {
  python3 - "$RESULTS" <<'EOF'
import json, os, sys
counts = {}
for d, _, files in os.walk(sys.argv[1]):
    if "transpose.jsonl" in files:
        p = os.path.join(d, "transpose.jsonl")
        with open(p, errors="replace") as f:
            counts[p] = sum(1 for _ in f)
print(json.dumps(counts))
EOF
}

if [ "$tune" = 1 ]; then
  [ -x "$CUTUNE" ] || die "$CUTUNE not found: build first (cmake -S . -B build && cmake --build build -j)"
  before=$(snapshot)
  echo "== $CUTUNE run $SPACE --results $RESULTS ${CUTUNE_ARGS:-}"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$CUTUNE" run "$SPACE" --results "$RESULTS" ${CUTUNE_ARGS:-} 2>&1 | tee "$OUT/cutune.log" ||
    die "cutune run failed (log: $OUT/cutune.log)"
  t1=$(date +%s.%N)
  python3 - "$RESULTS" "$before" "$t0" "$t1" <<'EOF'
import json, os, sys
results, before, t0, t1 = sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
wall = t1 - t0
configs, records = set(), 0
for d, _, files in os.walk(results):
    if "transpose.jsonl" not in files:
        continue
    p = os.path.join(d, "transpose.jsonl")
    with open(p, errors="replace") as f:
        new = f.read().splitlines()[before.get(p, 0):]
    for ln in new:
        try:
            r = json.loads(ln)
        except ValueError:
            continue  # a torn line
        records += 1
        configs.add(json.dumps(r.get("params", {}), sort_keys=True))
print(f"== tuning: {len(configs)} configurations ({records} records) measured in {wall:.2f} s end to end"
      f" -> {len(configs) / wall:.1f} configurations/s ({records / wall:.1f} records/s)")
if not configs:
    print("   (nothing new was measured: the store already held every configuration)")
EOF
fi

# The winner at 8192^2 over every transpose store under $RESULTS (the newest store if several).
store=$(find "$RESULTS" -name transpose.jsonl -type f -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2-)
[ -n "$store" ] || die "no transpose.jsonl under $RESULTS: run without --no-tune first"
winner=$(python3 - "$store" "$PROBLEM" <<'EOF'
import json, sys
store, problem = sys.argv[1], sys.argv[2]
best = None
with open(store, errors="replace") as f:
    for ln in f:
        try:
            r = json.loads(ln)
        except ValueError:
            continue
        if r.get("problem") != problem or r.get("status") != "ok":
            continue
        t = r.get("t_median")
        if not isinstance(t, (int, float)) or t <= 0:
            continue
        if best is None or t < best["t_median"]:
            best = r
if best is None:
    sys.exit(f"transpose.sh: no record with status ok for {problem} in {store}")
params = best.get("params", {})
if not isinstance(params, dict) or not params:
    sys.exit(f"transpose.sh: the best record in {store} has no params object")
flags = " ".join(f"-D{k}={int(str(v))}" for k, v in params.items())
print(f"{flags}\t{best['t_median']}")
EOF
) || die "could not read a winner from $store"
flags=${winner%%$'\t'*}
t_best=${winner##*$'\t'}
echo "== winner at $PROBLEM in $store: $flags (t_median $t_best ms)"

bin="$OUT/transpose_bench"
echo "== $NVCC -O3 -arch=$ARCH $flags bench/transpose_bench.cu -lcublas"
# shellcheck disable=SC2086
"$NVCC" -O3 -arch="$ARCH" $flags -o "$bin" bench/transpose_bench.cu -lcublas -Xlinker -rpath -Xlinker "$CUDA_LIB" ||
  die "building transpose_bench failed"
echo "== $bin ${bench_args[*]:-} --csv $OUT/transpose_bench.csv"
"$bin" "${bench_args[@]}" --csv "$OUT/transpose_bench.csv" | tee "$OUT/transpose_bench.txt" ||
  die "transpose_bench failed or a kernel was wrong; see $OUT/transpose_bench.txt"
echo "== table: $OUT/transpose_bench.txt, CSV: $OUT/transpose_bench.csv"
