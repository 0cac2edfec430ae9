#!/usr/bin/env bash
# cli_bench_shapes: the side-by-side shape benchmark's parts that need no GPU — its program
# (bench/shapes_bench.cu) compiles with nvcc against the launchers' headers; every line of its
# shape lists parses; and the "unseen" list (bench/shapes_unseen.txt) holds no shape of any
# tuned list of the project (lua/*.lua problems, bench/shapes.txt), since it judges the header's
# rule for untuned sizes. The GPU run is bench/shapes.sh (bench/shapes_session.sh).
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
NVCC=${CUTUNE_NVCC:-$(command -v nvcc || true)}
[ -n "$NVCC" ] && [ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
expect_status 0 -- "$NVCC" -O1 -arch=sm_90 -I results -I kernels -I bench -c bench/shapes_bench.cu -o "$TMPROOT/shapes_bench.o"
# the lists: kinds and sizes as shapes_bench.cu reads them
for f in bench/shapes.txt bench/shapes_unseen.txt; do
  bad=$(sed 's/#.*//' "$f" | awk 'NF && !(($1 == "sgemm" && NF == 4) || ($1 == "transpose" && NF == 3) || ($1 == "vecadd" && NF == 2)) { print NR": "$0 }
                                   NF { for (i = 2; i <= NF; i++) if ($i !~ /^[1-9][0-9]*$/) print NR": "$0 }')
  [ -z "$bad" ] && ok || fail "$f: lines that do not parse: $bad"
done
n=$(sed 's/#.*//' bench/shapes.txt | awk '$1 == "sgemm"' | wc -l)
[ "$n" -ge 12 ] && ok || fail "bench/shapes.txt has $n SGEMM shapes (the issue's 12 at least)"
# every tuned shape: the problems of the lua files ({M = .., N = .., K = ..}, {N = .., M = ..},
# {n = ..}) and bench/shapes.txt, as "kind sizes"
{
  sed -n 's/.*{ *M *= *\([0-9]*\), *N *= *\([0-9]*\), *K *= *\([0-9]*\) *}.*/sgemm \1 \2 \3/p' lua/matmul*.lua
  sed -n 's/.*{ *N *= *\([0-9]*\), *M *= *\([0-9]*\) *}.*/transpose \1 \2/p' lua/transpose*.lua
  sed -n 's/.*{ *n *= *\([0-9]*\) *}.*/vecadd \1/p' lua/vecadd*.lua
  sed 's/#.*//' bench/shapes.txt | awk 'NF { $1 = $1; print }'
} | sort -u > "$TMPROOT/tuned"
[ "$(grep -c '^sgemm' "$TMPROOT/tuned")" -ge 16 ] && ok || fail "found only $(grep -c '^sgemm' "$TMPROOT/tuned") tuned SGEMM shapes in lua/ and bench/shapes.txt"
sed 's/#.*//' bench/shapes_unseen.txt | awk 'NF { $1 = $1; print }' | sort -u > "$TMPROOT/unseen"
both=$(comm -12 "$TMPROOT/tuned" "$TMPROOT/unseen")
[ -z "$both" ] && ok || fail "bench/shapes_unseen.txt lists tuned shapes: $both"
finish
