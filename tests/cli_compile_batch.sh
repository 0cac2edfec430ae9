#!/usr/bin/env bash
# Several configurations per NVRTC program (--batch; compile.h, compile_batch.c), without a GPU:
# a batch with a broken member reports exactly that member (and no other), as a compile alone
# would; a member whose compile worker crashes is that member's failure only; resources are the
# same as compiled alone; each member keeps a cache entry of its own (a warm run compiles
# nothing); a template that cannot be batched turns batching off and still compiles whole; a
# template that includes a header is not batched; a batched module runs through the fake driver;
# a C++ kernel (its name mangled) batches; a space that fills symbols does not; members over the
# static shared-memory limit are invalid from the batch's report, the others batched again.
. "$(dirname "$0")/lib_cli.sh"
set -e
CO=(run --compile-only --arch sm_90 --no-progress)

# 1. partly_broken: X = 2 does not compile; the 6 configurations in one batch, one worker
expect_status 3 -- "$BIN" "${CO[@]}" --jobs 1 --no-cache --batch 6 -v tests/spaces/partly_broken.lua
expect_output "6 configurations for sm_90" "broken member"
expect_output "0 from the cache, 2 failed" "broken member: the two with X=2 only"
expect_output "compiled again alone after their batch failed" "broken member: the retry"
errs=$(printf '%s\n' "$OUTPUT" | grep -E '^X=[0-9],B=[0-9]+ +compile_error' || true)
n=$(printf '%s\n' "$errs" | grep -c compile_error || true)
[ "$n" -eq 2 ] && ok || fail "$n compile errors listed (wanted 2)"
if printf '%s\n' "$errs" | grep -v '^X=2,' | grep -q .; then fail "a configuration other than X=2 failed: $errs"; else ok; fi
# the message is the compile alone's: the template's line and that configuration's options
expect_output "partly_broken.cu(" "broken member: the template's line"
expect_output "[compiled with -DX=2 -DB=64 for sm_90]" "broken member: its own options"
if printf '%s' "$OUTPUT" | grep -q "configurations)"; then fail "a message names the batch program"; else ok; fi
if printf '%s' "$OUTPUT" | grep -q "batching turned off"; then fail "a real error turned batching off"; else ok; fi

# 1b. batch_smem: 4 of 12 over 48 KB of static shared memory (a C++ kernel). ptxas names no error
# and reports every entry: those 4 are invalid from that report, the others batched again, none
# compiled alone, batching stays on, and their resources are those of a compile alone
run_any "$BIN" "${CO[@]}" --jobs 1 --no-cache --batch 6 -v tests/spaces/batch_smem.lua
[ "$STATUS" -eq 0 ] && ok || fail "batch_smem: exit $STATUS (wanted 0: the limit is data)"
expect_output "12 compiled, 0 from the cache, 0 failed, 4 invalid (over a limit of sm_90)" "batch_smem: the 4 over the limit"
expect_output "batched again after another member of their batch was over the shared-memory limit" "batch_smem: rebatched"
expect_output "WORDS=32768,B=128: tests/spaces/batch_smem.cu: kernel 'smem_k' uses 131072 bytes of static shared memory" "batch_smem: the kernel and its bytes"
expect_output "[compiled with -DWORDS=16384 -DB=64 for sm_90]" "batch_smem: its own options"
for bad in "compiled again alone" "batching turned off"; do
  if printf '%s' "$OUTPUT" | grep -q "$bad"; then fail "batch_smem: '$bad'"; else ok; fi
done
printf '%s\n' "$OUTPUT" | grep -E '^  [0-9]+ +(64|128) ' | sort > "$TMPROOT/smem-6.txt"
run_any "$BIN" "${CO[@]}" --jobs 1 --no-cache --batch 1 -v tests/spaces/batch_smem.lua
printf '%s\n' "$OUTPUT" | grep -E '^  [0-9]+ +(64|128) ' | sort > "$TMPROOT/smem-1.txt"
[ "$(grep -c ' ok$' "$TMPROOT/smem-1.txt")" -eq 8 ] && diff "$TMPROOT/smem-1.txt" "$TMPROOT/smem-6.txt" > /dev/null && ok ||
  fail "batch_smem: the table differs between --batch 1 and 6: $(diff "$TMPROOT/smem-1.txt" "$TMPROOT/smem-6.txt" | head -5)"

# 2. resources as compiled alone, and a cache entry per member: the warm run compiles nothing
C="$TMPROOT/cache-b"
for b in 1 5; do
  run_any "$BIN" "${CO[@]}" --jobs 2 --no-cache --batch $b -v tests/spaces/fake_race.lua
  printf '%s\n' "$OUTPUT" | grep -E '^B=[0-9]+,U=[0-9] ' | sort > "$TMPROOT/res-$b.txt"
done
[ "$(grep -c ' ok ' "$TMPROOT/res-1.txt")" -eq 10 ] && ok || fail "batch 1: not 10 ok"
diff "$TMPROOT/res-1.txt" "$TMPROOT/res-5.txt" > /dev/null && ok || fail "resources differ between --batch 1 and 5"
expect_output "NVRTC programs: " "the programs line"
expect_output "configurations in " "batches were formed"
run_any "$BIN" "${CO[@]}" --jobs 2 --cache "$C" --batch 5 tests/spaces/fake_race.lua
expect_output ": 10 compiled, 0 from the cache" "cold, batched"
entries=$(cat "$C"/*/*.meta | grep -o '"lowered":"cutune_b[0-9]*_copy_race"' | wc -l)
[ "$entries" -ge 2 ] && ok || fail "$entries cache entries of batch members (wanted the batched ones)"
run_any "$BIN" "${CO[@]}" --jobs 2 --cache "$C" --batch 5 tests/spaces/fake_race.lua
expect_output ": 0 compiled, 10 from the cache" "warm: one entry per member"

# 3. a member whose worker crashes (the worker's abort hook, in the test-only cutune-hooks):
#    that member's compile error alone
HOOKS=${CUTUNE_HOOKS_BIN:-}
if [ -n "$HOOKS" ] && [ -x "$HOOKS" ]; then
  export CUTUNE_COMPILE_WORKER_ABORT=-DB=256
  expect_status 3 -- "$HOOKS" "${CO[@]}" --jobs 1 --no-cache --batch 10 -v tests/spaces/fake_race.lua
  unset CUTUNE_COMPILE_WORKER_ABORT
  expect_output "0 from the cache, 2 failed" "crashed member: the two with B=256"
  bad=$(printf '%s\n' "$OUTPUT" | grep -E '^B=[0-9]+,U=[0-9] +compile_error' | grep -vc '^B=256,' || true)
  [ "$bad" -eq 0 ] && ok || fail "$bad configurations other than B=256 failed with the crash"
else
  echo "note: cutune-hooks not built (-DCUTUNE_TEST_HOOKS=ON): the crashed-member case is not run"
fi

# 4. a template that cannot be batched: batching turns itself off, everything compiles
expect_status 0 -- "$BIN" "${CO[@]}" --jobs 1 --no-cache --batch 4 tests/spaces/batch_breaks.lua
expect_output "8 configurations for sm_90" "unbatchable"
expect_output "0 from the cache, 0 failed" "unbatchable: all compile alone"
expect_output "batching turned off" "unbatchable: said so"

# 5. a template that includes a header is never batched
run_any "$BIN" "${CO[@]}" --jobs 1 --no-cache --batch 4 tests/spaces/fake_run.lua
if printf '%s' "$OUTPUT" | grep "NVRTC programs" | grep -q batches; then fail "a template with an #include was batched"; else ok; fi

# 6. through the fake driver: the batched modules load, their renamed kernels run and check
FAKE="$(dirname "$BIN")/fakecuda"
if [ -f "$FAKE/libcuda.so.1" ]; then
  LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run_any "$BIN" run --jobs 1 --no-progress --race off \
    --batch 5 --results "$TMPROOT/results" --cache "$TMPROOT/cache-gpu" tests/spaces/fake_race.lua
  [ "$STATUS" -eq 0 ] && ok || { fail "batched run through the fake: exit $STATUS"; printf '%s\n' "$OUTPUT" | tail -5 >&2; }
  expect_output "10 of 10 configurations passed" "batched run through the fake"
  n=$(cat "$TMPROOT/cache-gpu"/*/*.meta | grep -o '"lowered":"cutune_b' | wc -l)
  [ "$n" -ge 2 ] && ok || fail "the fake run's compiles were not batched ($n entries)"
fi

# 7. a C++ kernel (mangled name) batches: every member found, none compiled again alone; the
#    batched modules run through the fake by their lowered names
C="$TMPROOT/cache-cxx"
run_any "$BIN" "${CO[@]}" --jobs 1 --cache "$C" --batch 4 tests/spaces/batch_cxx.lua
expect_output "8 configurations for sm_90 in" "C++ kernel"
expect_output ": 8 compiled, 0 from the cache, 0 failed" "C++ kernel: all compiled"
expect_output "(8 configurations in 2 batches of up to 4)" "C++ kernel: batched"
if printf '%s' "$OUTPUT" | grep -q "compiled again alone"; then fail "a C++ kernel's batch failed"; else ok; fi
n=$(cat "$C"/*/*.meta | grep -o '"lowered":"_ZN9cutune_b[0-9]*[0-9]*cutune_b[0-9]*_copy_ok' | wc -l)
[ "$n" -eq 8 ] && ok || fail "$n cache entries with a batch member's mangled name (wanted 8)"
if [ -f "$FAKE/libcuda.so.1" ]; then
  LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run_any "$BIN" run --jobs 1 --no-progress --race off \
    --batch 4 --results "$TMPROOT/results-cxx" --cache "$TMPROOT/cache-cxx-gpu" tests/spaces/batch_cxx.lua
  [ "$STATUS" -eq 0 ] && ok || { fail "batched C++ run through the fake: exit $STATUS"; printf '%s\n' "$OUTPUT" | tail -5 >&2; }
  expect_output "8 of 8 configurations passed" "batched C++ run through the fake"
fi

# 8. a space that fills a __constant__ variable is never batched (the GPU worker finds it by its
#    own name, which a member's namespace would change)
run_any "$BIN" "${CO[@]}" --jobs 1 --no-cache --batch 4 tests/spaces/realk/fake_const.lua
expect_output ": 2 compiled, 0 from the cache, 0 failed" "symbols: compiled"
if printf '%s' "$OUTPUT" | grep "NVRTC programs" | grep -q batches; then fail "a space with symbols was batched"; else ok; fi
finish
