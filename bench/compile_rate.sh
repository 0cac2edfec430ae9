#!/usr/bin/env bash
# The cold compile rate, side by side (no GPU needed): `cutune run --compile-only --no-cache
# --sample N SPACE` with one NVRTC program per configuration (--batch 1), with the automatic
# batches (the default), and, where OLD names another cutune binary (say, a build of the commit
# before batching), with that one too, in alternating rounds so that the machine's load drifts
# over all of them alike. Each run is timed for its wall clock and the CPU of the whole process
# tree (the compile workers' too): on a shared machine the CPU seconds are the steadier figure.
#   bench/compile_rate.sh [SPACE.lua]        (default lua/transpose_space.lua)
# The figure of issue 21 (2x the CPU rate of before it) is OLD_REV=33bf7a5^ (the commit before its
# first change): the script builds that revision itself (git archive into $OUT/old, cutune only,
# a couple of minutes on 2 cores) and compares it with BUILD's cutune in the same rounds.
# Environment: BUILD (default build), OLD (a cutune binary to compare, optional), OLD_REV (a git
# revision to build and compare instead, optional), SAMPLE (300),
# JOBS (compile workers, default nproc), ROUNDS (2), ARCH (sm_90), OUT (logs, default
# bench-out/compile_rate). Prints one line per run and a table of medians last; the ratios are
# against the first variant (OLD where given, else --batch 1).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
SPACE=${1:-lua/transpose_space.lua}
SAMPLE=${SAMPLE:-300}
JOBS=${JOBS:-$(nproc)}
ROUNDS=${ROUNDS:-2}
ARCH=${ARCH:-sm_90}
OUT=${OUT:-bench-out/compile_rate}
mkdir -p "$OUT"
[ "$ROUNDS" -ge 1 ] 2> /dev/null || { echo "bench/compile_rate.sh: ROUNDS must be 1 or more, got '$ROUNDS'" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "bench/compile_rate.sh: needs /usr/bin/time (GNU time)" >&2; exit 2; }

if [ -z "${OLD:-}" ] && [ -n "${OLD_REV:-}" ]; then
  src="$OUT/old/src"
  if [ ! -x "$OUT/old/build/cutune" ] || [ "$(cat "$OUT/old/rev" 2>/dev/null)" != "$(git rev-parse "$OLD_REV")" ]; then
    rm -rf "$OUT/old" && mkdir -p "$src"
    git archive "$OLD_REV" | tar -x -C "$src"
    echo "building $OLD_REV ($(git log -1 --format=%s "$OLD_REV" | cut -c1-60)) into $OUT/old/build"
    cmake -S "$src" -B "$OUT/old/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$OUT/old/cmake.log" 2>&1
    cmake --build "$OUT/old/build" -j"$(nproc)" --target cutune > "$OUT/old/build.log" 2>&1 ||
      { echo "bench/compile_rate.sh: building $OLD_REV failed (see $OUT/old/build.log)" >&2; exit 2; }
    git rev-parse "$OLD_REV" > "$OUT/old/rev"
  fi
  OLD="$OUT/old/build/cutune"
fi
names=() cmds=()
if [ -n "${OLD:-}" ]; then names+=("old"); cmds+=("$OLD run --compile-only"); fi
names+=("batch 1" "batch auto")
cmds+=("$B/cutune run --compile-only --batch 1" "$B/cutune run --compile-only")

declare -A walls cpus
for r in $(seq "$ROUNDS"); do
  for i in "${!names[@]}"; do
    log="$OUT/run-$i-$r.txt"
    # shellcheck disable=SC2086
    /usr/bin/time -f "TIME %e %U %S" ${cmds[$i]} --arch "$ARCH" --jobs "$JOBS" --no-cache --no-progress \
      --sample "$SAMPLE" "$SPACE" > "$log" 2>&1 || true
    read -r w u s < <(sed -n 's/^TIME //p' "$log")
    c=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.1f", u + s }')
    walls[$i]+="$w " cpus[$i]+="$c "
    got=$(grep -o '[0-9]* configurations for [^ ]* in [0-9.]* s: [0-9]* compiled' "$log" || echo "no summary: see $log")
    printf '%-10s round %d: %7.1f s wall %7.1f s CPU  (%s)\n' "${names[$i]}" "$r" "$w" "$c" "$got"
    grep -h "^NVRTC programs" "$log" | sed 's/^/             /' || true
  done
done

med() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '\n%-10s %10s %10s %12s %10s %10s\n' variant "wall s" "CPU s" "configs/s" "wall x" "CPU x"
w0=$(echo "${walls[0]}" | med) c0=$(echo "${cpus[0]}" | med)
for i in "${!names[@]}"; do
  w=$(echo "${walls[$i]}" | med) c=$(echo "${cpus[$i]}" | med)
  awk -v n="${names[$i]}" -v w="$w" -v c="$c" -v w0="$w0" -v c0="$c0" -v k="$SAMPLE" \
    'BEGIN { printf "%-10s %10.1f %10.1f %12.2f %10.2f %10.2f\n", n, w, c, k / w, w0 / w, c0 / c }'
done
