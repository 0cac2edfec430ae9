#!/bin/bash
# cli_ship: `cutune header` and `cutune best` on the fixture stores of tests/ship/ (three cutune
# stores of three GPUs, one Kernel Tuner cache; known winners, see tests/ship/make_fixtures.py):
# the header equals the golden file, is the same bytes twice, compiles with gcc -std=c99 -Wall
# -Werror, g++ and nvcc, and its selector falls back device -> architecture -> default and picks
# the nearest size (tests/ship/select_test.c); bad inputs get clear messages; the Pareto front
# of time and energy is the known one.
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
F=tests/ship
args=("$F/shipfix.lua" "$F/results" "$F/kt_a4000.json")

expect_status 0 -- "$BIN" header "${args[@]}" -o "$TMPROOT/a.h"
expect_output "1 records of another version of the template skipped"
mv "$TMPROOT/a.h" "$TMPROOT/first.h"
expect_status 0 -- "$BIN" header "${args[@]}" -o "$TMPROOT/a.h"
if cmp -s "$TMPROOT/a.h" "$TMPROOT/first.h"; then ok; else fail "two runs gave different bytes"; fi
# the golden file is generated with stdout: the regenerate line differs by the -o only
"$BIN" header "${args[@]}" > "$TMPROOT/golden.h" 2>/dev/null
if diff -u "$F/shipfix.golden.h" "$TMPROOT/golden.h" > "$TMPROOT/diff"; then ok; else fail "header differs from $F/shipfix.golden.h"; head -40 "$TMPROOT/diff" >&2; fi

# records of an older template version that named a parameter fewer (the template gained one
# since): skipped as another version, never a disagreement of the parameters
cp -r "$F/results" "$TMPROOT/oldver"
python3 - "$TMPROOT/oldver/NVIDIA_H200/shipfix.jsonl" <<'PY'
import json, sys
path = sys.argv[1]
r = json.loads(open(path).readline())
del r["params"]["C"]
r["config"] = "A=%s,B=%s" % (r["params"]["A"], r["params"]["B"])
r["provenance"]["template_hash"] = "0123456789abcdef0123456789abcdef"
with open(path) as f: rest = f.read()
with open(path, "w") as f: f.write(json.dumps(r) + "\n" + rest)
PY
expect_status 0 -- "$BIN" header "$F/shipfix.lua" "$TMPROOT/oldver" "$F/kt_a4000.json" -o "$TMPROOT/oldver.h"
expect_output "oldver/NVIDIA_H200/shipfix.jsonl: 1 records of another version of the template skipped"
if diff <(sed 3d "$TMPROOT/first.h") <(sed 3d "$TMPROOT/oldver.h" | sed "s|$TMPROOT/oldver|$F/results|g") > /dev/null; then ok
else fail "an older version's records changed the header"; fi

# the selector, from C99, C++ and CUDA
cp "$F/select_test.c" "$F/shipfix.golden.h" "$TMPROOT/"
expect_status 0 -- gcc -std=c99 -Wall -Wextra -Werror -pedantic -DCUTUNE_SHIPFIX_ARCH=80 -o "$TMPROOT/st_c" "$TMPROOT/select_test.c"
expect_status 0 -- "$TMPROOT/st_c"
expect_output "all checks passed"
expect_status 0 -- g++ -Wall -Wextra -Werror -x c++ -o "$TMPROOT/st_cxx" "$TMPROOT/select_test.c"
expect_status 0 -- "$TMPROOT/st_cxx"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$NVCC" ]; then
  cp "$TMPROOT/select_test.c" "$TMPROOT/select_test.cu"
  expect_status 0 -- "$NVCC" -Werror all-warnings -o "$TMPROOT/st_cu" "$TMPROOT/select_test.cu"
  expect_status 0 -- "$TMPROOT/st_cu"
else
  echo "note: no nvcc, the CUDA compile of the header is not checked here"
fi

# --rule mean: i4 (A=2,B=1,C=0) has the best mean share for the small problem
expect_status 0 -- "$BIN" header --rule mean "${args[@]}"
expect_output "mean 86.0 % of each GPU's own best"
if printf '%s' "$OUTPUT" | grep -A1 "/\* default, K=10,N=1000" | grep -q "A=2,B=1,C=0"; then ok; else fail "--rule mean default is not A=2,B=1,C=0"; fi

# bad inputs
expect_status 1 -- "$BIN" header "$F/shipfix.lua" "$F/bad/other_space.jsonl"
expect_output "records of space 'other', not 'shipfix'"
expect_status 1 -- "$BIN" header "$F/shipfix.lua" "$F/bad/params.jsonl"
expect_output "parameters (A,B,D) disagree with those of the space (A,B,C)"
expect_status 1 -- "$BIN" header "$F/shipfix.lua" "$F/bad/failed.jsonl"
expect_output "no configuration ran successfully"
# a problem variable named like a local of the selector (vecadd's n) compiles; a keyword is refused
for v in n int; do
  V="$TMPROOT/var_$v"
  mkdir -p "$V/r/NVIDIA_H200"
  cp "$F/shipfix.cu" "$V/"
  sed -e "s/N = /$v = /g; s/\"N\"/\"$v\"/g; s/n\.N/n.$v/g" "$F/shipfix.lua" > "$V/shipfix.lua"
  sed -e "s/,N=/,$v=/g" "$F/results/NVIDIA_H200/shipfix.jsonl" > "$V/r/NVIDIA_H200/shipfix.jsonl"
done
expect_status 0 -- "$BIN" header "$TMPROOT/var_n/shipfix.lua" "$TMPROOT/var_n/r" -o "$TMPROOT/var_n/shipfix.h"
expect_status 0 -- grep -q "long long K, long long n)" "$TMPROOT/var_n/shipfix.h"
printf '#include "shipfix.h"\nint main(void) { return cutune_shipfix_select("NVIDIA H200", 9, 0, 10, 1000)->level; }\n' > "$TMPROOT/var_n/m.c"
expect_status 0 -- gcc -std=c99 -Wall -Wextra -Werror -o "$TMPROOT/var_n/m" "$TMPROOT/var_n/m.c"
expect_status 0 -- "$TMPROOT/var_n/m"
expect_status 1 -- "$BIN" header "$TMPROOT/var_int/shipfix.lua" "$TMPROOT/var_int/r"
expect_output "problem variable 'int' cannot be a parameter of the generated selector"
expect_status 2 -- "$BIN" header --rule best "$F/shipfix.lua"
expect_status 0 -- "$BIN" header --help
expect_output "k tuned shapes nearest to it"

# the Pareto front of time and energy on the H200 fixture: i11, i4, i5, i0 (i1 is dominated)
expect_status 0 -- "$BIN" best --space "$F/shipfix.lua" "$F/results/NVIDIA_H200/shipfix.jsonl"
expect_output "NVIDIA H200 / shipfix / K=10,N=1000: 12 records, 4 on the front of time (min), energy (min)"
front=$(printf '%s\n' "$OUTPUT" | sed -n '/K=10,N=1000:/,/^$/p' | grep -E "^ +[0-9.]+ +[0-9.]+ +A=" | awk '{print $3}' | tr '\n' ' ')
if [ "$front" = "A=4,B=2,C=1 A=2,B=1,C=0 A=2,B=1,C=1 A=1,B=1,C=0 " ]; then ok; else fail "front is '$front'"; fi
expect_status 0 -- "$BIN" best --json --objectives time,regs:max "$F/results/NVIDIA_H200/shipfix.jsonl"
expect_output '"fastest": "A=4,B=2,C=1"'
# without --space: every space of the inputs, each with its own parameters
# (and the committed store's compressed part, packed by tools/store-archive, read as a file)
expect_status 0 -- "$BIN" best "$F/results" "$F/kt_a4000.json" results/NVIDIA_H200/transpose.jsonl.gz
# (the committed store changes as it is re-measured: its count of distinct configurations there)
n8k=$(gzip -dc results/NVIDIA_H200/transpose.jsonl.gz | grep -F '"problem":"M=8192,N=8192"' | sed -n 's/.*"config":"\([^"]*\)".*/\1/p' | sort -u | wc -l)
expect_output "== NVIDIA H200 / transpose / M=8192,N=8192: $n8k records"
expect_output "== NVIDIA RTX A4000 / scale / size=10,1000: 12 records"
expect_status 2 -- "$BIN" best --objectives time,speed "$F/results"
expect_output "unknown objective 'speed'"
# the shipping rule: a configuration a sanitizer flagged (the sidecar of `cutune explain
# --sanitize` beside the store) is never shipped; the same store without the sidecar ships it
FR="$TMPROOT/flagged"
mkdir -p "$FR"
cp -r "$F/results/." "$FR/"
cat > "$FR/NVIDIA_H200/shipfix.explain.jsonl" <<'SIDE'
{"kind":"sanitize","config":"A=4,B=2,C=1","problem":"K=10,N=1000","time":"2026-12-01T00:00:00Z","tool":"memcheck","verdict":"flagged","errors":1,"detail":"Invalid __global__ write of size 4 bytes"}
SIDE
expect_status 0 -- "$BIN" header "$F/shipfix.lua" "$FR" "$F/kt_a4000.json" -o "$TMPROOT/flagged.h"
expect_output "A=4,B=2,C=1 not shipped"
if grep -q '/\* device NVIDIA H200, K=10,N=1000: A=4,B=2,C=1 \*/' "$TMPROOT/flagged.h"; then
  fail "the flagged configuration is still the H200 entry"
else ok; fi
if grep -q '/\* device NVIDIA H200, K=10,N=1000: A=4,B=2,C=1 \*/' "$TMPROOT/first.h"; then ok; else fail "the unflagged header lacks the H200 entry the test expects"; fi
# a space narrowed after measuring (A=4 dropped from its values; then a constraint that rejects
# B=2) ships none of what it excludes, says how many records it skipped, and names the first
NS="$TMPROOT/narrow"
mkdir -p "$NS"
cp "$F/shipfix.cu" "$NS/"
sed -e 's/ct.param("A", {1, 2, 4})/ct.param("A", {1, 2})/' "$F/shipfix.lua" > "$NS/shipfix.lua"
expect_status 0 -- grep -q 'ct.param("A", {1, 2})' "$NS/shipfix.lua"
expect_status 0 -- "$BIN" header "$NS/shipfix.lua" "$F/results" -o "$TMPROOT/narrow.h"
expect_output "records of configurations the space does not have skipped (a value it no longer lists or a constraint that rejects them; the first: A=4,"
if grep -q 'A=4,' "$TMPROOT/narrow.h"; then fail "the narrowed space's header ships an A=4 configuration"; else ok; fi
if grep -q 'A=4,' "$TMPROOT/first.h"; then ok; else fail "the full header ships no A=4 configuration: the narrowing check proves nothing"; fi
# best --space names what header ships: configurations the narrowed space still has
expect_status 0 -- "$BIN" best --space "$NS/shipfix.lua" "$F/results"
if printf '%s' "$OUTPUT" | grep -q '^fastest: A=4,'; then fail "best --space names an A=4 configuration the space dropped"; else ok; fi
expect_output "records of configurations the space does not have skipped"
expect_status 0 -- "$BIN" best --space "$F/shipfix.lua" "$F/results"
expect_output "fastest: A=4,B=2,C=1"
sed -e 's/^  params = /  constraints = { ct.rule({"B"}, function(p) return p.B == 1 end, "B=1 only") },\n  params = /' "$F/shipfix.lua" > "$NS/shipfix.lua"
expect_status 0 -- "$BIN" header "$NS/shipfix.lua" "$F/results" "$F/kt_a4000.json" -o "$TMPROOT/narrow2.h"
expect_output "configurations the space does not have skipped"
if grep -q 'B=2,' "$TMPROOT/narrow2.h" || grep -q 'X(B, 2)' "$TMPROOT/narrow2.h"; then fail "the constrained space's header ships a B=2 configuration"; else ok; fi
finish
