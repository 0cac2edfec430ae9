#!/usr/bin/env bash
# Every input a user can get wrong gets a clear message naming the file, line or value:
# command-line flags, space files (the corpus in tests/spaces/bad/, each naming the message it
# must produce on its first line), a template that fails to compile for some configurations.
. "$(dirname "$0")/lib_cli.sh"
set -e
# small limits on the space's Lua code: the corpus has spaces that loop, grow and enumerate
# without end (docs/SPACE.md, "Limits")
export CUTUNE_LUA_INSTRUCTIONS=1e7 CUTUNE_LUA_MEMORY=64 CUTUNE_MAX_CONFIGS=100000

expect_status 2 -- "$BIN"
expect_output "usage: cutune"
expect_status 2 -- "$BIN" frobnicate
expect_output "unknown command 'frobnicate'"
expect_status 0 -- "$BIN" --help
expect_output "run SPACE.lua"
expect_status 0 -- "$BIN" run --help
expect_output "--results DIR"
expect_status 0 -- "$BIN" help run
expect_output "--strategy NAME"
expect_status 2 -- "$BIN" run
expect_output "no space file given"
expect_status 2 -- "$BIN" run --bogus lua/transpose_space.lua
expect_output "unknown option '--bogus'"
expect_status 2 -- "$BIN" run --budget abc lua/transpose_space.lua
expect_output "--budget needs a positive number of evaluations, got 'abc'"
expect_status 2 -- "$BIN" run --budget -3 lua/transpose_space.lua
expect_output "got '-3'"
expect_status 2 -- "$BIN" run --jobs 0 lua/transpose_space.lua
expect_output "--jobs needs"
expect_status 2 -- "$BIN" run --arch sm_12 lua/transpose_space.lua
expect_output "--arch 'sm_12'"
expect_status 2 -- "$BIN" run --results
expect_output "option '--results' needs a value"
expect_status 2 -- "$BIN" run a.lua b.lua
expect_output "extra argument 'b.lua'"
expect_status 1 -- "$BIN" run --compile-only "$TMPROOT/no_such_space.lua"
expect_output "no_such_space.lua"
expect_status 2 -- "$BIN" run --compile-only --problem 7 lua/transpose_space.lua
expect_output "--problem '7' matches no problem of lua/transpose_space.lua (it has 3"
# --problem: the sizes in any order, or some of them (issue 23, item 14)
for p in "N=8192,M=8192" "M=8192,N=8192" "M=8192" "N=1000" "0"; do
  expect_status 0 -- "$BIN" run --compile-only --sample 1 -q --problem "$p" lua/transpose_space.lua
done
expect_status 2 -- "$BIN" run --compile-only --problem M=1 lua/transpose_space.lua
expect_output "--problem 'M=1' matches no problem of lua/transpose_space.lua"
expect_status 2 -- "$BIN" run --compile-only --problem N=8192,M=4096 lua/transpose_space.lua
expect_output "matches no problem"
expect_status 2 -- "$BIN" run --compile-only --problem 'N8192' lua/transpose_space.lua
expect_output "expected an index (0), a range"
# one problem (explain, report, __profile-one): sizes in any order, as few as tell it apart
expect_status 1 -- "$BIN" __profile-one lua/transpose_space.lua TILE=7 M=1
expect_output "no valid configuration 'TILE=7'"
expect_status 1 -- "$BIN" report lua/transpose_space.lua --results "$TMPROOT/none" --problem M=1
expect_output "'M=1' matches no problem of lua/transpose_space.lua (its problems: M=8192,N=8192, M=4096,N=4096, M=3002,N=1000"
expect_status 2 -- "$BIN" devices --frob
expect_output "unknown option '--frob'"

# the corpus of bad spaces: first line "-- expect: <text>"
n=0
for f in tests/spaces/bad/*.lua; do
  [ -e "$f" ] || continue
  head -1 "$f" | grep -q '^-- expect-\(geometry\|limit\):' && continue   # checked by test_space_errors
  if head -1 "$f" | grep -q '^-- expect-edit:'; then # a generator's failure: its configurations' compile errors
    want=$(head -1 "$f" | sed -n 's/^-- expect-edit: //p')
    run_any "$BIN" run --compile-only --jobs 1 "$f"
    [ "$STATUS" -eq 3 ] || [ "$STATUS" -eq 4 ] && ok || fail "$f: exit $STATUS (wanted 3 or 4: configurations failed)"
    expect_output "$want" "$f"
    continue
  fi
  want=$(head -1 "$f" | sed -n 's/^-- expect: //p')
  [ -n "$want" ] || { fail "$f has no '-- expect:' first line"; continue; }
  expect_status 1 -- "$BIN" run --compile-only --jobs 1 "$f"
  expect_output "$want" "$f"
  expect_output "$(basename "$f")" "$f (names the file)"
  n=$((n + 1))
done
[ "$n" -ge 10 ] && ok || fail "expected at least 10 bad spaces, found $n"

# a template that fails to compile for one value: reported with the NVRTC log, the rest compiled;
# exit status 3: some configurations failed
expect_status 3 -- "$BIN" run --compile-only --jobs 2 --arch sm_90 tests/spaces/partly_broken.lua
expect_output "compile_error"
expect_output "partly_broken.cu("
expect_output "-DX=2"
expect_output "2 failed"
expect_output "timing needs a GPU"
# a template parameter named as a parameter of the space: the macro replaces it, and NVRTC's
# message alone ("expected a ',' or '>'") does not say why; the note names it and its line
expect_status 4 -- "$BIN" run --compile-only --jobs 2 --arch sm_90 -v tests/spaces/tpl_clash.lua
expect_output "tpl_clash.cu(3): error" "the clash: NVRTC's message"
expect_output "BLOCK is a parameter of the space, given to the program as the macro -DBLOCK, and a template parameter of tests/spaces/tpl_clash.cu at line 3" "the clash named"
if printf '%s' "$OUTPUT" | grep -q "note: X is a parameter"; then fail "a note where no clash"; else ok; fi
W="$TMPROOT/clash"
mkdir -p "$W"
sed -e 's/int BLOCK,/int B,/' -e 's/blockIdx.x \* BLOCK/blockIdx.x * B/' tests/spaces/tpl_clash.cu > "$W/tpl_clash.cu"
cp tests/spaces/tpl_clash.lua "$W/"
expect_status 0 -- "$BIN" run --compile-only --jobs 2 --arch sm_90 "$W/tpl_clash.lua"
expect_output "2 compiled, 0 from the cache, 0 failed" "renamed, the template takes BLOCK by name"
# partly_broken's error has no such note
expect_status 3 -- "$BIN" run --compile-only --jobs 2 --arch sm_90 -v tests/spaces/partly_broken.lua
if printf '%s' "$OUTPUT" | grep -q "is a parameter of the space, given"; then fail "partly_broken got the clash note"; else ok; fi
# a parameter the template never names (misspelt: the template's #ifndef default applies) is
# warned about before anything compiles (issue 23, item 14); the spelled-right one is not
W="$TMPROOT/misspelt"
mkdir -p "$W"
cp tests/spaces/fake_run.cu tests/spaces/fake_run_inc.cuh "$W/"
sed -e 's/ct.param("U", {1, 2})/ct.param("UNROL", {1, 2})/' tests/spaces/fake_run.lua > "$W/fake_run.lua"
expect_status 0 -- grep -q 'ct.param("UNROL"' "$W/fake_run.lua"
expect_status 0 -- "$BIN" run --compile-only --sample 1 --jobs 2 -q "$W/fake_run.lua"
expect_output "warning: parameter UNROL appears nowhere in $W/fake_run.cu or the files it includes"
if printf '%s' "$OUTPUT" | grep -q "parameter B appears nowhere\|parameter COVER appears nowhere"; then fail "a parameter the template uses was warned about"; else ok; fi
expect_status 0 -- "$BIN" run --compile-only --sample 1 --jobs 2 -q tests/spaces/fake_run.lua
if printf '%s' "$OUTPUT" | grep -q "appears nowhere"; then fail "fake_run.lua's parameters were warned about"; else ok; fi
finish
