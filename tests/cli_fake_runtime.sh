#!/usr/bin/env bash
# Runtime parameters end to end without a GPU, through the fake libcuda.so.1 (tests/fake):
# tests/spaces/fake_runtime.lua has one -D parameter (U: 2 values) and two runtime ones (R: 3,
# S: 2) that reach the kernel as its 4th and 5th arguments. The 12 configurations compile to 2
# modules (in the cache: 2 entries beside the reference's, and no -DR/-DS anywhere); each
# configuration's launch gets its own R (the fake's copy_rt is right only with 2 there: exactly
# the 4 R=2 configurations pass, so a value that did not reach the kernel, or reached the wrong
# configuration, fails the count); the run says how many modules served how many configurations;
# compile-only compiles 2 modules (and counts the 10 others as sharing them, however the
# compiles and the cache raced); the header's cutune-config lines (the -D's of a production
# build) leave R and S out; with --no-cache, jobs of one key in flight together compile once;
# the compile window counts modules, so every worker has one to compile; the first proposals are
# compiled while the GPU worker starts, and not again.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/fake_runtime.lua tests/spaces/fake_runtime.cu "$d/"
R="$TMPROOT/results"
STORE="$R/Fake_H200/fake_runtime.jsonl"

run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_runtime.lua"
[ "$STATUS" -eq 3 ] && ok || fail "run exited $STATUS (wanted 3: some configurations gave wrong results)"
expect_output "problem n=4096: 12 configurations" "run"
expect_output "modules: 12 configurations from 2 compiled modules" "the time note"
n=$(grep -c . "$STORE" || true)
[ "$n" -eq 12 ] && ok || fail "store has $n records (wanted 12)"
oks=$(grep '"status":"ok"' "$STORE" | grep -c '"R":"2"\|R=2' || true)
all_ok=$(grep -c '"status":"ok"' "$STORE" || true)
[ "$all_ok" -eq 4 ] && [ "$oks" -eq 4 ] && ok || fail "$all_ok ok records, $oks of them R=2 (wanted exactly the 4 with R=2)"
wrong=$(grep -c '"status":"wrong_result"' "$STORE" || true)
[ "$wrong" -eq 8 ] && ok || fail "$wrong wrong_result records (wanted the 8 with R=1 or R=3)"
# every configuration is recorded under its full key, runtime parameters included
keys=$(sed 's/.*"config":"\([^"]*\)".*/\1/' "$STORE" | sort -u | wc -l)
[ "$keys" -eq 12 ] && ok || fail "$keys distinct configuration keys (wanted 12)"
# the cache: the reference and one module per U, none with a runtime parameter as -D
metas=$(find "$CUTUNE_CACHE" -name '*.meta' | wc -l)
[ "$metas" -eq 3 ] && ok || fail "$metas compile cache entries (wanted 3: the reference and U=1, U=2)"
if grep -l -e '-DR=' -e '-DS=' $(find "$CUTUNE_CACHE" -name '*.meta') >/dev/null 2>&1; then
  fail "a runtime parameter was passed to NVRTC as -D"
else ok; fi
# the options hash is that of the module: 2 distinct values over 12 records
oh=$(sed 's/.*"options_hash":"\([^"]*\)".*/\1/' "$STORE" | sort -u | wc -l)
[ "$oh" -eq 2 ] && ok || fail "$oh distinct options hashes (wanted 2)"

# the header: the cutune-config lines (what CutuneKernels.cmake -D's) leave the runtime
# parameters out; the X-macros and entries keep them, and each is marked a kernel argument
expect_status 0 -- "$BIN" header "$d/fake_runtime.lua" "$R" -o "$TMPROOT/rt.h"
if grep '^ \* cutune-config' "$TMPROOT/rt.h" | grep -q -e ' R=' -e ' S='; then fail "a cutune-config line lists a runtime parameter"
else ok; fi
if grep -q '^ \* cutune-config 0 U=[12]$' "$TMPROOT/rt.h"; then ok; else fail "cutune-config 0 is not 'U=<value>' alone"; fi
if grep -q 'CONFIG_0(X) X(U, [12]) X(R, 2) X(S, [05])$' "$TMPROOT/rt.h"; then ok; else fail "the X-macro of configuration 0 lacks R=2 or S"; fi
for p in R S; do
  if grep -q "^#define CUTUNE_FAKE_RUNTIME_RUNTIME_$p 1" "$TMPROOT/rt.h"; then ok; else fail "no CUTUNE_FAKE_RUNTIME_RUNTIME_$p"; fi
done

# the same run again: everything answered from the store
run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_runtime.lua"
expect_output "problem n=4096: 0 measured (0 failed), 12 answered from the store" "second run"

# the runtime sweep: a search (random, 6 of the 12) measures the strategy's first proposal at
# all 6 values of (R, S): 6 configurations, 1 module, both R=2 ones among them; with
# --no-runtime-sweep the strategy picks all 6, from both modules (seed 1)
R3="$TMPROOT/results-sweep"
run_any "$BIN" run --jobs 2 --no-progress --strategy random --budget 6 --results "$R3" "$d/fake_runtime.lua"
expect_output "modules: 6 configurations from 1 compiled module (" "sweep"
expect_output "strategy random (each proposal measured at its 6 runtime values: --no-runtime-sweep)" "sweep note"
S3="$R3/Fake_H200/fake_runtime.jsonl"
u=$(sed 's/.*"config":"U=\([0-9]\).*/\1/' "$S3" | sort -u | wc -l)
[ "$u" -eq 1 ] && [ "$(grep -c . "$S3")" -eq 6 ] && ok || fail "sweep: $(grep -c . "$S3") records over $u values of U (wanted 6 over 1)"
[ "$(grep -c '"status":"ok"' "$S3")" -eq 2 ] && ok || fail "sweep: not exactly the 2 R=2 configurations passed"
R4="$TMPROOT/results-nosweep"
run_any "$BIN" run --jobs 2 --no-progress --strategy random --budget 6 --no-runtime-sweep --results "$R4" "$d/fake_runtime.lua"
expect_output "modules: 6 configurations from 2 compiled modules" "--no-runtime-sweep"

# compile-only: 12 configurations, 2 modules. The 10 others share those modules whether they
# followed a compile in flight or found the entry it had just written (timing decides which on
# a busy machine: the counts go by what this run compiled); a second run finds all 12 cached
export CUTUNE_CACHE="$TMPROOT/cache2"
expect_status 0 -- "$BIN" run --compile-only --arch sm_90 --jobs 2 --no-progress "$d/fake_runtime.lua"
expect_output "12 configurations for sm_90 in" "compile-only"
expect_output ": 2 compiled, 10 sharing another's module (runtime parameters), 0 from the cache, 0 failed" "compile-only"
metas=$(find "$CUTUNE_CACHE" -name '*.meta' | wc -l)
[ "$metas" -eq 3 ] && ok || fail "compile-only left $metas cache entries (wanted 3)"
expect_status 0 -- "$BIN" run --compile-only --arch sm_90 --jobs 2 --no-progress "$d/fake_runtime.lua"
expect_output ": 0 compiled, 12 from the cache, 0 failed" "compile-only again"
# the race made certain: with S over 4 values a module serves 12 configurations, more than
# compile-only hands out ahead with one worker (2 x 1 + 4), so the last 6 of each are submitted
# after their module was compiled and cached: they still share it
export CUTUNE_CACHE="$TMPROOT/cache3"
sed 's/ct.param("S", {0, 5}/ct.param("S", {0, 5, 6, 7}/' "$d/fake_runtime.lua" > "$d/fake_runtime_s4.lua"
expect_status 0 -- "$BIN" run --compile-only --arch sm_90 --jobs 1 --no-progress "$d/fake_runtime_s4.lua"
expect_output "24 configurations for sm_90 in" "compile-only, S over 4 values"
expect_output ": 2 compiled, 22 sharing another's module (runtime parameters), 0 from the cache, 0 failed" "compile-only, S over 4 values"

# and without a cache: the pool remembers what it compiled in this run, so the 18 submitted after
# their module's compile had finished (one worker, 6 handed out ahead) still share it
expect_status 0 -- "$BIN" run --compile-only --arch sm_90 --jobs 1 --no-cache --no-progress "$d/fake_runtime_s4.lua"
expect_output ": 2 compiled, 22 sharing another's module (runtime parameters), 0 from the cache, 0 failed" "compile-only --no-cache"

# no cache at all: jobs of one key submitted together follow the first (one compile each); the
# run still measures all 12 correctly
R2="$TMPROOT/results-nocache"
run_any "$BIN" run --jobs 1 --no-cache --no-progress --results "$R2" "$d/fake_runtime.lua"
[ "$STATUS" -eq 3 ] && ok || fail "no-cache run exited $STATUS (wanted 3)"
all_ok=$(grep -c '"status":"ok"' "$R2/Fake_H200/fake_runtime.jsonl" || true)
[ "$all_ok" -eq 4 ] && ok || fail "no-cache run: $all_ok ok records (wanted 4)"
expect_output "modules: 12 configurations from 2 compiled modules" "no-cache time note"

# the compile window counts modules, not configurations: 8 modules of 6 configurations each
# (U 1..8) keep all 4 workers compiling at once (a window of 2 x 4 + 6 configurations held 3)
sed -e 's/ct.param("U", {1, 2})/ct.param("U", {1, 2, 3, 4, 5, 6, 7, 8})/' "$d/fake_runtime.lua" > "$d/fake_runtime_u8.lua"
R3="$TMPROOT/results-u8"
run_any "$BIN" run --jobs 4 --batch 1 --no-cache --no-progress --results "$R3" "$d/fake_runtime_u8.lua"
[ "$STATUS" -eq 3 ] && ok || fail "u8 run exited $STATUS (wanted 3)"
expect_output "modules: 48 configurations from 8 compiled modules" "u8: 8 modules"
expect_output "compile pool: 8 NVRTC programs; its 4 workers busy" "u8: the pool's line"
expect_output "up to 4 compiling at once" "u8: every worker had a module"
# what the search proposes before any result (2 x 4 + 4 modules: here all 8) is compiled while the GPU
# worker starts (exec_prefetch): the fake's context waits until the trace says they were handed
# to the pool, and they are the very ones the search then proposes: no module compiled twice
# (the 8 modules in 8 programs at most)
T="$TMPROOT/prefetch.trace"
rm -rf "$R3"
CUTUNE_TRACE="$T" FAKE_CUDA_CTX_WAIT="prefetch: 8 configurations handed to the compile pool" \
  run_any "$BIN" run --jobs 4 --batch 1 --no-cache --no-progress --results "$R3" "$d/fake_runtime_u8.lua"
[ "$STATUS" -eq 3 ] && ok || fail "prefetch run exited $STATUS (wanted 3)"
expect_output "modules: 48 configurations from 8 compiled modules" "prefetch: 8 modules"
progs=$(printf '%s\n' "$OUTPUT" | sed -n 's/^compile pool: \([0-9]*\) NVRTC programs.*/\1/p')
[ -n "$progs" ] && [ "$progs" -le 8 ] && ok || fail "prefetch: $progs NVRTC programs for 8 modules (a module compiled twice?)"
# resumed over that store: nothing prefetched (the store's answers change what the search asks)
T2="$TMPROOT/prefetch2.trace"
CUTUNE_TRACE="$T2" run_any "$BIN" run --jobs 4 --batch 1 --no-cache --no-progress --results "$R3" "$d/fake_runtime_u8.lua"
expect_output "48 answered from the store" "resumed"
if grep -q "prefetch:" "$T2"; then fail "a resumed run prefetched"; else ok; fi
# a budget of 12 is 2 proposals of 6: the 2 modules prefetched are the 2 the search proposes
rm -rf "$R3"
run_any "$BIN" run --jobs 4 --batch 1 --no-cache --no-progress --budget 12 --results "$R3" "$d/fake_runtime_u8.lua"
expect_output "modules: 12 configurations from 2 compiled modules" "prefetch under a budget: 2 modules"
expect_output "compile pool: 2 NVRTC programs" "prefetch under a budget: the search's own"

# a result larger than the pipe holds (a 160 KB __device__ table: ~170 KB cubins), read late
# (the fake's module loads take 1.5 s, past the 1 s --compile-timeout): the pool reads it in
# pieces before it judges the deadline, so no good compile becomes a compile_timeout (12 did)
B="$TMPROOT/big"
mkdir -p "$B"
cp "$d/fake_runtime_u8.lua" "$B/fake_runtime.lua"
sed -e 's/^extern "C" __global__ void copy_rt/__device__ float big_table[40960] = {1.0f, 2.0f, 3.0f};\n&/' \
  -e 's/in\[i \* U + k\] +/in[i * U + k] + 0.0f * big_table[(i * 7 + U) % 40960] +/' tests/spaces/fake_runtime.cu > "$B/fake_runtime.cu"
grep -q big_table "$B/fake_runtime.cu" && ok || fail "the big table was not added"
FAKE_CUDA_LOAD_DELAY_MS=1500 run_any "$BIN" run --jobs 2 --compile-timeout 1 --no-progress --results "$B/r" "$B/fake_runtime.lua"
n=$(grep -c '"compile_timeout"' "$B/r/Fake_H200/fake_runtime.jsonl" || true)
m=$(grep -c . "$B/r/Fake_H200/fake_runtime.jsonl" || true)
[ "$n" -eq 0 ] && [ "$m" -eq 48 ] && ok || fail "$n compile_timeout records of 48 ($m) whose compiles were good, read late"
finish
