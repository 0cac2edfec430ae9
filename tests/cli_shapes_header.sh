#!/usr/bin/env bash
# cli_shapes_header: `cutune header` on a shape set — the made-up SGEMM-like model of
# tests/fixtures (16 shapes, every one of 384 configurations measured on each; the formula is
# tests/fixtures/shapes_model.awk). The header ships a small kernel set that covers every tuned
# shape within 3 % (fewer kernels with a looser --cover, fewer shapes covered with
# --max-kernels 2), says so with the rule's leave-one-out figures on the terminal and in its
# comment, is the same bytes twice, compiles as C99 (-pedantic -Werror) and C++ (and CUDA where
# nvcc is), and its selector: gives each tuned shape its own entry, gives sizes never tuned what
# `cutune header --why` (the C implementation of the rule) says, and there, judged by the model
# itself, reaches on average (geometric mean) at least 80 % of the model's best over all 384 (16
# tuned shapes spread over 2^7 .. 2^14 in each size are sparse: the leave-one-out says as much).
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
ST=tests/fixtures/store/shapes_model.jsonl.gz
SP=tests/spaces/shapes_model.lua
H="$TMPROOT/shapes_model.h"
expect_status 0 -- "$BIN" header "$SP" "$ST" -o "$H"
expect_output "cutune header: kernel selection (cover 0.03, at most 16 kernels per level):"
row=$(printf '%s\n' "$OUTPUT" | grep -E '^cutune header:   NVIDIA H200 ' | sed 's/^cutune header: //')
set -- $row
# level name (2 words), shapes, kernels, covered
[ "$3" = 16 ] && [ "$5" = 16/16 ] && ok || fail "H200 row: $row"
nk=$4
[ "$nk" -ge 2 ] && [ "$nk" -lt 16 ] && ok || fail "$nk kernels for 16 shapes"
[ "$(grep -c '^ \* cutune-config ' "$H")" -eq "$nk" ] && ok || fail "the header ships $(grep -c '^ \* cutune-config ' "$H") configurations, the table says $nk"
grep -q '^ \*  NVIDIA H200 .* k=[1-4] |' "$H" && ok || fail "the header's comment lacks the selection table"
"$BIN" header "$SP" "$ST" -o "$TMPROOT/again.h" 2>/dev/null
# the same bytes but line 3, the command that regenerates it (-o differs)
cmp -s <(sed 3d "$H") <(sed 3d "$TMPROOT/again.h") && ok || fail "two runs gave different bytes"

# the selector, from C99, C++ (and CUDA): reads "K M N" lines, prints the entry and why
cat > "$TMPROOT/sel.c" <<'C'
#include <stdio.h>
#include "shapes_model.h"
int main(void) {
  long long K, M, N;
  while (scanf("%lld %lld %lld", &K, &M, &N) == 3) {
    const cutune_shapes_model_entry *e = cutune_shapes_model_select("NVIDIA H200", 9, 0, K, M, N);
    char why[1024];
    int c = cutune_shapes_model_why("NVIDIA H200", 9, 0, K, M, N, why, sizeof why);
    printf("%lld %lld %lld %d %d %d %d %d %lld %lld %lld %.4f %d %d | %s\n", K, M, N, e->BM, e->BN, e->BK, e->SPLIT, e->W,
           e->problem[0], e->problem[1], e->problem[2], e->share, e->level, c == e->config, why);
  }
  return 0;
}
C
expect_status 0 -- gcc -std=c99 -Wall -Wextra -Werror -pedantic -I "$TMPROOT" -o "$TMPROOT/sel" "$TMPROOT/sel.c"
expect_status 0 -- g++ -Wall -Wextra -Werror -x c++ -I "$TMPROOT" -o "$TMPROOT/selxx" "$TMPROOT/sel.c"
NVCC=${CUTUNE_NVCC:-$(command -v nvcc || true)}
if [ -n "$NVCC" ] && [ -x "$NVCC" ]; then
  cp "$TMPROOT/sel.c" "$TMPROOT/sel.cu"
  expect_status 0 -- "$NVCC" -Werror all-warnings -I "$TMPROOT" -o "$TMPROOT/selcu" "$TMPROOT/sel.cu"
fi
# every tuned shape gets its own entry, within 3 % of its best
tuned=$(zcat "$ST" | sed -n 's/.*"problem":"K=\([0-9]*\),M=\([0-9]*\),N=\([0-9]*\)".*/\1 \2 \3/p' | sort -u)
printf '%s\n' "$tuned" | "$TMPROOT/sel" > "$TMPROOT/tuned.out"
bad=$(awk '$1 != $9 || $2 != $10 || $3 != $11 || $12 < 0.97 || $13 != 0 || $14 != 1' "$TMPROOT/tuned.out")
[ "$(wc -l < "$TMPROOT/tuned.out")" -eq 16 ] && [ -z "$bad" ] && ok || fail "tuned shapes not given their own entries: $bad"
# sizes never tuned: the C selector chooses what `cutune header --why` says, and does well by the model
cat > "$TMPROOT/untuned.txt" <<'S'
8192 4096 4096
3072 3072 3072
1536 1536 1536
768 768 768
384 384 384
6144 8192 6144
512 12288 512
8192 2048 256
128 4096 8192
256 2048 16384
2048 1024 512
1024 8192 1024
3000 640 2000
300 20000 300
4096 256 4096
S
# the C selector built on header $1 (its folder), on the untuned sizes, against --why on store $2:
# they must agree; then the share of the model's best they reach (geometric mean, least, count)
untuned_check() { # header-folder store
  cp "$TMPROOT/sel.c" "$1/sel.c" # beside its header: "shapes_model.h" is looked for there first
  expect_status 0 -- gcc -std=c99 -Wall -Wextra -Werror -pedantic -I "$1" -o "$1/sel" "$1/sel.c"
  "$1/sel" < "$TMPROOT/untuned.txt" > "$1/untuned.out"
  local args=() K M N BM BN BK S W rest mism=0 want
  while read -r K M N; do args+=(--why "K=$K,M=$M,N=$N"); done < "$TMPROOT/untuned.txt"
  expect_status 0 -- "$BIN" header "$SP" "$2" "${args[@]}"
  printf '%s\n' "$OUTPUT" | sed 's/^cutune header: //' | awk '/^the rule for/ { k = $4 } /^  NVIDIA H200 / { print k, $3 }' > "$1/why.txt"
  while read -r K M N BM BN BK S W rest; do
    want=$(awk -v k="K=$K,M=$M,N=$N" '$1 == k { print $2 }' "$1/why.txt")
    [ "$want" = "BM=$BM,BN=$BN,BK=$BK,SPLIT=$S,W=$W," ] || { mism=$((mism + 1)); echo "  K=$K,M=$M,N=$N: C gives BM=$BM,BN=$BN,BK=$BK,SPLIT=$S,W=$W; --why $want" >&2; }
  done < "$1/untuned.out"
  [ "$mism" -eq 0 ] && ok || fail "$mism sizes where the generated selector ($1) and cutune header --why disagree"
  JUDGE=$(awk -f tests/fixtures/shapes_model.awk -f <(cat <<'AWK'
{ K = $1; M = $2; N = $3; best = 1e30
  split("32 64 128 256", T, " "); split("8 16 32", B, " "); split("1 2 4 8", S, " ")
  for (i = 1; i <= 4; i++) for (j = 1; j <= 4; j++) for (b = 1; b <= 3; b++) for (s = 1; s <= 4; s++) for (w = 1; w <= 2; w++) {
    t = model_ms(M, N, K, T[i], T[j], B[b], S[s], w); if (t < best) best = t
  }
  share = best / model_ms(M, N, K, $4, $5, $6, $7, $8); lg += log(share); n++
  if (n == 1 || share < least) least = share }
END { printf "%.3f %.3f %d\n", exp(lg / n), least, n }
AWK
) "$1/untuned.out")
}
mkdir -p "$TMPROOT/plain" "$TMPROOT/fill"
cp "$H" "$TMPROOT/plain/shapes_model.h"
untuned_check "$TMPROOT/plain" "$ST"
set -- $JUDGE
plain=$1
echo "sizes never tuned: the rule's kernels reach ${1} of the model's best (geometric mean; least $2) over $3 sizes"
awk -v g="$1" 'BEGIN { exit !(g >= 0.80) }' && ok || fail "geometric mean share $1 at untuned sizes (wanted >= 0.80)"
cp "$TMPROOT/plain/untuned.out" "$TMPROOT/untuned.out"

# the fill term: the same store with each record's block size and occupancy as the model has them
# (its blocks per SM: 32768 / (BM x BN), 1 to 8, on 132 SMs). The grid of the space is a product of
# tiles, so the header fits its model; leave-one-out takes the fill term ("+fill"), the C
# selector computes it as cutune does, and the untuned sizes do better by the model than without.
zcat "$ST" | awk '{ match($0, /"BM":"[0-9]+"/); bm = substr($0, RSTART + 6, RLENGTH - 7) + 0
  match($0, /"BN":"[0-9]+"/); bn = substr($0, RSTART + 6, RLENGTH - 7) + 0
  t = bm * bn / 64; w = int((t + 31) / 32); s = int(32768 / (bm * bn)); if (s < 1) s = 1; if (s > 8) s = 8
  sub(/,"compile_ms"/, sprintf(",\"resources\":{\"block_threads\":%d,\"occupancy\":%.6f},\"compile_ms\"", t, s * w / 64))
  print }' > "$TMPROOT/fill.jsonl"
expect_status 0 -- "$BIN" header "$SP" "$TMPROOT/fill.jsonl" -o "$TMPROOT/fill/shapes_model.h"
expect_output "+fill |"  # its k: the largest that leave-one-out cannot tell from the best (SELECT_LOO_TIE)
grep -q 'static const long long ct_m\[[0-9]*\] = {[1-8]' "$TMPROOT/fill/shapes_model.h" && ok || fail "no grid model in the header: $(grep 'ct_m\[' "$TMPROOT/fill/shapes_model.h")"
untuned_check "$TMPROOT/fill" "$TMPROOT/fill.jsonl"
set -- $JUDGE
echo "with the fill term: ${1} of the model's best (geometric mean; least $2; without it $plain)"
awk -v g="$1" -v p="$plain" 'BEGIN { exit !(g > p) }' && ok || fail "the fill term gives $1 at untuned sizes, without it $plain"
grep -q "each scaled by the GPU's fill" "$TMPROOT/fill/untuned.out" && ok || fail "the why text does not say the fill term"
# the SMs of a record's provenance (written since 2026-12-03) win over the table of names: the
# same store with "sms":66 gives every configuration half the block slots
sed 's/"cc":"9.0"/"cc":"9.0","sms":66/' "$TMPROOT/fill.jsonl" > "$TMPROOT/fill66.jsonl"
expect_status 0 -- "$BIN" header "$SP" "$TMPROOT/fill66.jsonl" -o "$TMPROOT/fill66.h"
slots() { grep -o 'ct_s\[[0-9]*\]\[[0-9]*\] = {.*}' "$1" | sed 's/.*= //' | tr -c '0-9\n' ' '; }
a=$(slots "$TMPROOT/fill/shapes_model.h") b=$(slots "$TMPROOT/fill66.h")
[ -n "$a" ] && [ "$(for x in $a; do echo $((x / 2)); done)" = "$(for x in $b; do echo "$x"; done)" ] && ok ||
  fail "slots with 132 SMs: $a; with the records' 66: $b"
expect_status 0 -- "$BIN" header "$SP" "$TMPROOT/fill.jsonl" --fill off -o "$TMPROOT/off.h"
expect_output "k=4 |"
expect_status 2 -- "$BIN" header "$SP" "$ST" --fill maybe
expect_output "--fill needs auto, on or off, got 'maybe'"
grep -q "| configuration [0-9]* (NVIDIA H200's): the kernel of the tuned shape K=" "$TMPROOT/untuned.out" && ok || fail "why text: $(head -1 "$TMPROOT/untuned.out")"

# the options: a looser cover needs fewer kernels; two kernels cannot cover 16 shapes; k fixed
expect_status 0 -- "$BIN" header "$SP" "$ST" --cover 0.25 -o "$TMPROOT/loose.h"
set -- $(printf '%s\n' "$OUTPUT" | grep -E '^cutune header:   NVIDIA H200 ' | sed 's/^cutune header: //')
[ "$4" -lt "$nk" ] && ok || fail "--cover 0.25 ships $4 kernels, --cover 0.03 $nk"
expect_status 0 -- "$BIN" header "$SP" "$ST" --max-kernels 2 --knn 1 -o "$TMPROOT/two.h"
set -- $(printf '%s\n' "$OUTPUT" | grep -E '^cutune header:   NVIDIA H200 ' | sed 's/^cutune header: //')
[ "$4" = 2 ] && [ "${5%/16}" -lt 16 ] && [ "$(grep -c '^ \* cutune-config ' "$TMPROOT/two.h")" -eq 2 ] && ok || fail "--max-kernels 2: $*"
expect_output "k=1 |"
expect_status 1 -- "$BIN" header "$SP" "$ST" --why M=1,N=2
expect_output "--why 'M=1,N=2': expected the sizes as a problem key, K=...,M=...,N=... (the names sorted)"
expect_status 2 -- "$BIN" header "$SP" "$ST" --knn 9
expect_output "--knn needs auto or a number of shapes from 1 to 4"
finish
