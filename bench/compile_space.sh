#!/usr/bin/env bash
# The whole-space compile benchmark (no GPU needed): compile every configuration of a space
# cold into a fresh cache, then time fully cached re-runs (nothing compiled, everything from
# the cache). The test suite compiles only a covering sample (tests/cli_compile_transpose.sh);
# this is where the whole space and the speed of a cached re-run are measured.
#   bench/compile_space.sh [SPACE.lua] [ARCH...]     (default: lua/transpose_space.lua sm_90)
# Environment: BUILD (default build), JOBS (compile workers, default nproc), REPEAT (warm runs,
# default 5), OUT (logs, default bench-out/), PERF=1 to record the warm run with perf,
# CACHE=DIR to use (and keep) that compile cache instead of a fresh temporary one (a second
# call with the same DIR measures warm runs only, its "cold" run being served from it).
# Prints, per arch: the cold time and counts, then each warm run's wall time and its median;
# a warm run must say "0 compiled" (else it exits 1).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
SPACE=${1:-lua/transpose_space.lua}
shift || true
ARCHS=("$@")
[ ${#ARCHS[@]} -gt 0 ] || ARCHS=(sm_90)
JOBS=${JOBS:-$(nproc)}
REPEAT=${REPEAT:-5}
OUT=${OUT:-bench-out}
mkdir -p "$OUT"
if [ -n "${CACHE:-}" ]; then
  mkdir -p "$CACHE"
else
  CACHE=$(mktemp -d "${TMPDIR:-/tmp}/cutune-bench-cache.XXXXXX")
  trap 'rm -rf "$CACHE"' EXIT
fi
now() { date +%s.%N; }
for arch in "${ARCHS[@]}"; do
  t=$(now)
  "$B/cutune" run --compile-only --arch "$arch" --jobs "$JOBS" --cache "$CACHE" --no-progress -q "$SPACE" \
    > "$OUT/cold-$arch.txt" 2>&1
  cold=$(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  echo "$arch cold: $cold s; $(grep -o '[0-9]* configurations for .*failed' "$OUT/cold-$arch.txt")"
  times=()
  for i in $(seq "$REPEAT"); do
    t=$(now)
    "$B/cutune" run --compile-only --arch "$arch" --jobs "$JOBS" --cache "$CACHE" --no-progress -q "$SPACE" \
      > "$OUT/warm-$arch.txt" 2>&1
    times+=("$(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')")
    grep -q ": 0 compiled," "$OUT/warm-$arch.txt" || { echo "warm run $i of $arch compiled something:"; tail -3 "$OUT/warm-$arch.txt"; exit 1; }
  done
  med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  echo "$arch warm (everything from the cache): ${times[*]} s; median $med s"
  if [ "${PERF:-0}" = 1 ] && command -v perf >/dev/null; then
    perf record -g -o "$OUT/perf-$arch.data" "$B/cutune" run --compile-only --arch "$arch" --jobs "$JOBS" \
      --cache "$CACHE" --no-progress -q "$SPACE" > /dev/null 2>&1
    perf report -i "$OUT/perf-$arch.data" --no-children --stdio --sort symbol 2>/dev/null | grep -E '^ +[0-9.]+%' | head -15
  fi
done
