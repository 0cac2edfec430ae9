#!/usr/bin/env bash
# cli_ship_hostile: what a store, a Kernel Tuner cache or a device names is data, never code or a
# path (issue 23, items 1, 3, 4, 6, 7). Through the fake libcuda.so.1 (tests/fake): a run on three
# "GPUs" named with a comment end, a newline and directives ending in the C99 trigraph ??/, and
# named "..", and "."; their stores stay inside the results folder (item 4); `cutune header`
# ships the run's template, which #includes a file (item 3); the header, with a hostile Kernel
# Tuner cache and a store of hostile configuration strings in a folder whose path holds "*/" and
# "??/", compiles with gcc -std=c99 -Wall -Werror -pedantic, g++ and nvcc -c, none of the
# injected directives takes effect, and the selector finds each device by its exact name
# (item 1). A record with a negative median is neither shipped nor ranked fastest (item 6);
# `cutune best` with no arguments reads the committed results/ (item 7).
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/fake_run.cu tests/spaces/fake_run_inc.cuh "$d/"
# fake_run.lua with 2 configurations (both correct) instead of 12: the run is not the subject
sed -e 's/ct.param("B", {64, 128, 256}), ct.param("COVER", {0, 1}), ct.param("U", {1, 2})/ct.param("B", {64, 128}), ct.param("COVER", {1}), ct.param("U", {1})/' \
  tests/spaces/fake_run.lua > "$d/fake_run.lua"
expect_status 0 -- grep -q 'ct.param("COVER", {1})' "$d/fake_run.lua"
R="$TMPROOT/results"
EVIL=$'Evil */\n#define CUTUNE_PWNED 1\n#include "/nonexistent/pwned.h"\n#error injected\n/* ??/'
CUTUNE_FAKE_DEVICES="$EVIL,..,." expect_status 0 -- "$BIN" run --jobs 2 --devices all --no-progress -q --results "$R" "$d/fake_run.lua"

# item 4: ".." and "." are folders of their own inside the results folder
if [ -f "$R/_./fake_run.jsonl" ] && [ -f "$R/_/fake_run.jsonl" ]; then ok; else fail "no store for '..' or '.' in $R"; ls -R "$R" >&2; fi
if [ -e "$TMPROOT/fake_run.jsonl" ] || [ -e "$R/fake_run.jsonl" ]; then fail "a store landed above or at the root of $R"; else ok; fi
nstores=$(find "$R" -name fake_run.jsonl | wc -l)
[ "$nstores" -eq 3 ] && ok || fail "$nstores stores for 3 devices"

# item 3: the template includes fake_run_inc.cuh; header keys records as run does
expect_status 0 -- "$BIN" header "$d/fake_run.lua" "$R" -o "$TMPROOT/fake_run.h"
if printf '%s' "$OUTPUT" | grep -q "another version of the template"; then fail "records taken for another template version"; else ok; fi
expect_status 0 -- grep -q "cutune-config 0 B=" "$TMPROOT/fake_run.h"

# item 1: the header compiles as C99 (trigraphs on), C++ and CUDA; nothing injected is live
cat > "$TMPROOT/use_run.c" <<'EOF'
#include <string.h>
#include "fake_run.h"
#ifdef CUTUNE_PWNED
#error a device name defined a macro
#endif
int main(int argc, char **argv) {
  /* each device by its exact name: the bytes the header carries are the name's own */
  for (int i = 1; i < argc; i++) {
    const cutune_fake_run_entry *e = cutune_fake_run_select(argv[i], 9, 0, 4096);
    if (e->level != 0 || strcmp(e->device, argv[i]) != 0) return 10 + i;
  }
  return 0;
}
EOF
compile_all() { # compile_all NAME.c ARGS... : C99, C++, then nvcc -c; runs the C and C++ programs
  local src=$1; shift
  rm -f "$TMPROOT/c99" "$TMPROOT/cxx"
  expect_status 0 -- gcc -std=c99 -Wall -Wextra -Werror -pedantic -I"$TMPROOT" -o "$TMPROOT/c99" "$TMPROOT/$src"
  expect_status 0 -- "$TMPROOT/c99" "$@"
  expect_status 0 -- g++ -Wall -Wextra -Werror -x c++ -I"$TMPROOT" -o "$TMPROOT/cxx" "$TMPROOT/$src"
  expect_status 0 -- "$TMPROOT/cxx" "$@"
  local nvcc=${CUTUNE_NVCC:-$(command -v nvcc || true)}
  if [ -n "$nvcc" ] && [ -x "$nvcc" ]; then
    cp "$TMPROOT/$src" "$TMPROOT/${src%.c}.cu"
    expect_status 0 -- "$nvcc" -c -Werror all-warnings -I"$TMPROOT" -o "$TMPROOT/cu.o" "$TMPROOT/${src%.c}.cu"
  else
    echo "note: no nvcc, the CUDA compile of the header is not checked here"
  fi
}
compile_all use_run.c "$EVIL" ".." "."
if grep -q '^#define CUTUNE_PWNED\|^#include "/nonexistent\|^#error' "$TMPROOT/fake_run.h"; then
  fail "an injected directive stands on a line of its own"
else ok; fi

# a hostile Kernel Tuner cache (device_name) and a store whose configuration strings and dates
# are hostile, in a folder whose path holds "*/" and "??/"
H="$TMPROOT/x*??"
mkdir -p "$H/NVIDIA_H200"
sed -e 's|"device_name": "NVIDIA RTX A4000"|"device_name": "NVIDIA RTX A4000 */\\n#define CUTUNE_PWNED 2\\n/* ??/"|' \
  tests/ship/kt_a4000.json > "$H/kt.json"
expect_status 0 -- grep -q 'CUTUNE_PWNED 2' "$H/kt.json"
sed -e 's|"config":"\([^"]*\)"|"config":"\1 */ #define CUTUNE_PWNED 3 /* ??/"|; s|"time":"2026|"time":"??/\\n#|' \
  tests/ship/results/NVIDIA_H200/shipfix.jsonl > "$H/NVIDIA_H200/shipfix.jsonl"
expect_status 0 -- grep -q 'CUTUNE_PWNED 3' "$H/NVIDIA_H200/shipfix.jsonl"
cp tests/ship/shipfix.lua tests/ship/shipfix.cu "$TMPROOT/"
expect_status 0 -- "$BIN" header "$TMPROOT/shipfix.lua" "$H" "$H/kt.json" -o "$TMPROOT/shipfix.h"
cat > "$TMPROOT/use_kt.c" <<'EOF'
#include <string.h>
#include "shipfix.h"
#ifdef CUTUNE_PWNED
#error a name defined a macro
#endif
int main(int argc, char **argv) {
  const cutune_shipfix_entry *e = cutune_shipfix_select(argc > 1 ? argv[1] : "", 8, 6, 10, 1000);
  return argc > 1 && e->level == 0 && strcmp(e->device, argv[1]) == 0 ? 0 : 1;
}
EOF
compile_all use_kt.c $'NVIDIA RTX A4000 */\n#define CUTUNE_PWNED 2\n/* ??/'
expect_status 0 -- grep -q 'x\*' "$TMPROOT/shipfix.h" # the folder is named, escaped

# item 6: a negative median is no time: not shipped, not the fastest
N="$TMPROOT/negative/NVIDIA_H200"
mkdir -p "$N"
sed -e '/"config":"A=4,B=2,C=1".*"problem":"K=10,N=1000"/s/"median":0.5,/"median":-5.0,/; /"config":"A=4,B=2,C=1".*"problem":"K=10,N=1000"/s/"t_median":0.5,/"t_median":-5.0,/' \
  tests/ship/results/NVIDIA_H200/shipfix.jsonl > "$N/shipfix.jsonl"
expect_status 0 -- grep -q '"t_median":-5.0' "$N/shipfix.jsonl"
expect_status 0 -- "$BIN" header "$TMPROOT/shipfix.lua" "$N/shipfix.jsonl" -o "$TMPROOT/negative.h"
expect_output "1 records marked ok with a time that is not a positive number skipped"
if grep -q -- '-5' "$TMPROOT/negative.h"; then fail "the negative median is shipped"; else ok; fi
if grep -q '/\* device NVIDIA H200, K=10,N=1000: A=4,B=2,C=1 \*/' "$TMPROOT/negative.h"; then
  fail "the configuration with a negative median is the H200 entry"
else ok; fi
expect_status 0 -- "$BIN" best "$N/shipfix.jsonl"
if printf '%s' "$OUTPUT" | grep -q "fastest: A=4,B=2,C=1 .*-5"; then fail "best ranks a negative median fastest"; else ok; fi
expect_output "fastest: A=2,B=1,C=0"

# item 7: `cutune best` with no arguments on a copy of the committed results/ (its
# .explain.jsonl sidecars are not stores)
C="$TMPROOT/copy"
mkdir -p "$C"
cp -rs "$(pwd)/results" "$C/results"
ls "$C"/results/*/*.explain.jsonl > /dev/null
(cd "$C" && "$BIN" best > "$TMPROOT/best.txt" 2> "$TMPROOT/best.err") && ok || { fail "cutune best in a copy of results/"; cat "$TMPROOT/best.err" >&2; }
if grep -q "== NVIDIA H200 / transpose / M=8192,N=8192" "$TMPROOT/best.txt"; then ok; else fail "best lacks the transpose front"; fi
if grep -q "explain" "$TMPROOT/best.err"; then fail "best read a sidecar"; cat "$TMPROOT/best.err" >&2; else ok; fi
finish
