#!/usr/bin/env bash
# shapes_session.sh: issue 20's tuning of the committed results for shape sets, on the GPU
# machine — SGEMM, transpose and vector add tuned over lua/*_shapes.lua with transfer (each
# shape's search seeded with the best kernels of the nearest shapes tuned before it) and the
# cross-measurement, the headers regenerated from those stores, then bench/shapes.sh (the shipped
# launchers against cuBLAS and cudaMemcpy, the issue's shapes and unseen ones).
#
#   CUTUNE=build-gpu/cutune bench/shapes_session.sh            every step (about 7.5 minutes)
#   STEPS=matmul bench/shapes_session.sh                       one call of about 5 minutes
#   STEPS="transpose vecadd headers bench" bench/shapes_session.sh   the rest, about 3 minutes
#
# Steps (STEPS, default "matmul transpose vecadd headers bench"), with the expected GPU time:
#   matmul     lua/matmul_shapes.lua, 53 shapes: the anchor 4096^3 cold (--time MM_FIRST, 60 s),
#              then the 52 others (--time MM_TIME, 12 s each at most; a seeded search ends once
#              120 evaluations in a row gain < 0.5 %; about 6 s each on the H200), then the
#              cross-measurement (the best 3 kernels of every shape, at most 48, on every
#              shape): ~420 s. Shapes the store already holds cost only their store answers.
#   transpose  lua/transpose_shapes.lua, 19 sizes: 8192^2 cold (--budget TR_FIRST, 600), the
#              others seeded (--budget TR_BUDGET, 200), the cross-measurement: ~50 s
#   vecadd     lua/vecadd_shapes.lua, 7 sizes: 2^28 cold (--budget VA_FIRST, 200), the others
#              seeded (--budget VA_BUDGET, 100), the cross-measurement: ~30 s
#   mmpin      (only when named, with MM_PIN: a file of store keys, one configuration per line)
#              those SGEMM configurations on every shape of lua/matmul_shapes.lua
#              (lua/matmul_shapes_pinned.lua, each shape exhaustively, no transfer, no cross
#              phase): configurations no search reached, weighed by the header with the rest
#   trpin      (only when named, with TR_PIN) the same for lua/transpose_shapes.lua, after the
#              transpose step (MM_PIN_PROBLEMS, TR_PIN_PROBLEMS: a --problem selection instead
#              of every shape)
#   headers    cutune header for the three (their kernel sets and rules): results of this
#              session in $RES/<space>.h, the selection tables in the summary: ~5 s
#   bench      bench/shapes.sh on those headers: the build (~40 s on 16 cores) and the timing of
#              bench/shapes.txt and bench/shapes_unseen.txt (~50 s): ~90 s
#
# The stores live in $RES (default build-shapes/results, an ignored folder the GPU machine keeps
# between calls; the first step that needs one copies the committed store from results/ into
# it, so the history stays whole); the compile cache in build-shapes/cache, shared by the steps
# (a seed compiled for one shape is a cache hit for the next). Environment: CUTUNE (default
# build/cutune), OUT (default gpu-out), the budgets above.
#
# Output ($OUT, 5 files): shapes_session.txt (what each step did: the per-shape cost tables, the
# kernel-selection tables, the benchmark's summary), shapes.txt and shapes.csv (bench/shapes.sh),
# shapes_results.tgz (the three stores with the records of old template versions moved to
# <space>.archive.jsonl.gz by tools/store-archive, and the three headers: copy them into
# results/ and commit), shapes_logs.tgz (every log).
# Exit status: 0, or 1 where a step failed (a run, a header or the bench: named on the summary's
# last line, FAILED: ...); the steps after a failed one still run.
set -uo pipefail
cd "$(dirname "$0")/.."
CUTUNE=${CUTUNE:-build/cutune}
OUT=${OUT:-gpu-out}
STEPS=${STEPS:-matmul transpose vecadd headers bench}
W=${W:-build-shapes}
RES=${RES:-$W/results}
MM_FIRST=${MM_FIRST:-60} MM_TIME=${MM_TIME:-12}
TR_FIRST=${TR_FIRST:-600} TR_BUDGET=${TR_BUDGET:-200}
VA_FIRST=${VA_FIRST:-200} VA_BUDGET=${VA_BUDGET:-100}
mkdir -p "$OUT" "$W/logs" "$RES"
SUM="$OUT/shapes_session.txt"
FAILED="" # the steps that exited non-zero: said at the end, and the script's exit status
export CUTUNE_CACHE="$W/cache" CUDA_CACHE_PATH="$W/cache/nvrtc"
say() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$SUM"; }
want() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
[ -x "$CUTUNE" ] || { echo "shapes_session.sh: $CUTUNE is not built (set CUTUNE=...)" >&2; exit 2; }

# the committed store of a space, copied once into $RES (its folder is the device's)
# (and its compressed part, <space>.jsonl.gz: results/README.md, "Packed stores"; and its
# archive, so that tools/store-archive at the end appends to it: the tgz's archive then holds
# every older record, and copying it over results/ loses none)
seed_store() { # space
  local f
  for f in results/*/"$1".jsonl results/*/"$1".jsonl.gz results/*/"$1".archive.jsonl.gz; do
    [ -f "$f" ] || continue
    local d="$RES/$(basename "$(dirname "$f")")"
    mkdir -p "$d"
    [ -f "$d/$(basename "$f")" ] || cp "$f" "$d/"
  done
}

# one cutune run: its log, its exit status and its last lines (the cost table) in the summary
tune() { # label timeout args...
  local label=$1 limit=$2
  shift 2
  local t=$(date +%s)
  timeout "$limit" "$CUTUNE" run --no-progress --results "$RES" "$@" > "$W/logs/$label.log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || FAILED="$FAILED $label"
  say "$label: exit $rc after $(( $(date +%s) - t )) s ($*)"
  sed -n '/what each cost/,/^total:/p' "$W/logs/$label.log" | tee -a "$SUM"
  grep -E "configurations measured in" "$W/logs/$label.log" | tail -1 | tee -a "$SUM"
}

# a shape set: the first shape cold, the others seeded from it and from each other (no cross
# phase yet), then the cross-measurement over all of them
shape_set() { # space first-args rest-args
  local sp=$1 first=$2 rest=$3 f=lua/$1_shapes.lua
  seed_store "$sp"
  tune "$sp-first" 300 "$f" --problem 0 --no-cross $first
  tune "$sp-rest" 560 "$f" --problem 1- --transfer --no-cross $rest
  tune "$sp-cross" 300 "$f" --problem all --cross-only
}

if want matmul; then
  say "matmul: lua/matmul_shapes.lua (53 shapes), transfer, cross-measurement"
  shape_set matmul "--time $MM_FIRST" "--time $MM_TIME"
fi
# configurations listed in a file, measured on every shape of a set (lua/<space>_shapes_pinned.lua:
# each shape exhaustively over them, no transfer, no cross phase)
pin_set() { # space file [problems]
  [ -f "$2" ] || { echo "shapes_session.sh: pinning $1 needs a file of configurations, got '$2'" >&2; exit 2; }
  say "pin: $(grep -vc '^#' "$2") configurations of $2 on the shapes ${3:-all} of lua/$1_shapes.lua"
  seed_store "$1"
  export CUTUNE_PIN
  CUTUNE_PIN=$(grep -v '^#' "$2" | tr -s '\n' ';')
  tune "$1-pin" 560 "lua/$1_shapes_pinned.lua" --problem "${3:-all}" --no-transfer --no-cross --strategy exhaustive
  unset CUTUNE_PIN
}

if want mmpin; then pin_set matmul "${MM_PIN:-}" "${MM_PIN_PROBLEMS:-all}"; fi
if want transpose; then
  say "transpose: lua/transpose_shapes.lua (19 sizes)"
  shape_set transpose "--budget $TR_FIRST" "--budget $TR_BUDGET"
fi
if want vecadd; then
  say "vecadd: lua/vecadd_shapes.lua (7 sizes)"
  shape_set vecadd "--budget $VA_FIRST" "--budget $VA_BUDGET"
fi
if want trpin; then pin_set transpose "${TR_PIN:-}" "${TR_PIN_PROBLEMS:-all}"; fi
if want headers; then
  for sp in matmul transpose vecadd; do
    seed_store "$sp"
    say "header: $sp"
    "$CUTUNE" header lua/${sp}_shapes.lua "$RES" -o "$RES/$sp.h" > "$W/logs/header-$sp.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || FAILED="$FAILED header-$sp"
    say "header $sp: exit $rc"
    grep -E "kernel selection|^cutune header:   " "$W/logs/header-$sp.log" | tee -a "$SUM"
  done
fi
if want bench; then
  say "bench: bench/shapes.sh on $RES/{matmul,transpose,vecadd}.h"
  HEADERS="$RES" OUT="$OUT" W="$W/bench" bash bench/shapes.sh > "$W/logs/bench.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || FAILED="$FAILED bench"
  say "bench: exit $rc (its log: $W/logs/bench.log, in shapes_logs.tgz)"
  head -1 "$W/logs/bench.log" | tee -a "$SUM"
  sed -n '/== summary/,$p' "$W/logs/bench.log" | tee -a "$SUM"
fi

# the stores, old template versions archived (nothing lost), and the headers; every log
for s in "$RES"/*/*.jsonl; do
  [ -f "$s" ] && python3 tools/store-archive "$s" >> "$W/logs/archive.log" 2>&1
done
tar -czf "$OUT/shapes_results.tgz" --exclude="*.lock" -C "$RES" . 2>/dev/null
tar -czf "$OUT/shapes_logs.tgz" -C "$W" logs 2>/dev/null
say "done: $OUT/shapes_results.tgz ($(du -h "$OUT/shapes_results.tgz" | cut -f1)), $OUT/shapes_logs.tgz"
if [ -n "$FAILED" ]; then
  say "FAILED:$FAILED (their logs are in shapes_logs.tgz)"
  exit 1
fi
