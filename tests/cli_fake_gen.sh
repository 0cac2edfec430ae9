#!/usr/bin/env bash
# A program text per configuration (template_edit = function(text, p): Kernel Tuner's
# kernel_source as a function of the parameters), end to end through the fake libcuda.so.1
# (tests/fake): tests/spaces/gen/fake_gen.lua renders a Jinja-like template, unrolling a statement
# p.U times and keeping one where the runtime parameter G is 1, into 6 texts for 12
# configurations (S, a runtime parameter the generator does not read, shares them). The run
# compiles one module per text (the run's modules line, the cache's entries) and checks every
# configuration; the records carry one template hash, the one `space --hashes` gives, which does
# not move with the function in the file but changes with its lines; a second run is answered
# from the store; a generator that raises or returns no text for some configurations records
# them as compile errors naming the function's line and the configuration, and the run goes on;
# the U=4 text alone holds the 4th statement (a compile error planted there fails those four
# only); the reference compiled once gets p = reference.defines, without them the run stops
# saying what to give, with reference.params it is each configuration's; `cutune header` refuses;
# --compile-only and __profile-one (explain's path) compile the generated text; equal texts
# batch and different ones never do; a launch sequence's further program is generated with its
# launch's defines in p; the once-per-run function(text) still compiles one text.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/gen/* "$d/"
cp -r tests/spaces/realk "$TMPROOT/" # fake_gen_seq.lua's base space and kernels, ../realk from it
S="$d/fake_gen.lua"
R="$TMPROOT/results"
STORE="$R/Fake_H200/fake_gen.jsonl"
st() { grep -c "\"status\":\"$2\"" "$1" || true; }
field() { sed "s/.*\"$2\":\"\\([^\"]*\\)\".*/\\1/" "$1" | sort -u; }
line_of() { grep -n "$1" "$S" | head -1 | cut -d: -f1; }

expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$S"
[ "$(st "$STORE" ok)" -eq 12 ] && ok || fail "$(st "$STORE" ok) ok records (wanted all 12)"
expect_output "modules: 12 configurations from 6 compiled modules" "one module per generated text"
metas=$(find "$CUTUNE_CACHE" -name '*.meta' | wc -l)
[ "$metas" -eq 7 ] && ok || fail "$metas compile cache entries (wanted 7: the reference and the 6 texts)"
oh=$(field "$STORE" options_hash | wc -l)
[ "$oh" -eq 6 ] && ok || fail "$oh distinct options hashes (wanted 6, one per text)"
th=$(field "$STORE" template_hash)
[ "$(printf '%s\n' "$th" | wc -l)" -eq 1 ] && ok || fail "the records carry several template hashes: $th"
expect_status 0 -- "$BIN" space --hashes "$S"
expect_output "template	$th" "space --hashes gives the records' template hash"
[ "$(printf '%s\n' "$OUTPUT" | grep '^config' | cut -f3 | sort -u | wc -l)" -eq 6 ] && ok ||
  fail "space --hashes: not 6 distinct options hashes"
# the function's digest: moving it in the file keeps the hash, editing its lines changes it
mkdir -p "$TMPROOT/moved" "$TMPROOT/edited"
cp "$d"/* "$TMPROOT/moved/" && cp "$d"/* "$TMPROOT/edited/"
{ echo "-- a line above every function"; cat "$S"; } >"$TMPROOT/moved/fake_gen.lua"
sed -i 's/return p\[name\] ~= 0 and body or ""/return p[name] == 0 and "" or body/' "$TMPROOT/edited/fake_gen.lua"
expect_status 0 -- "$BIN" space --hashes "$TMPROOT/moved/fake_gen.lua"
expect_output "template	$th" "the function moved down a line"
expect_status 0 -- "$BIN" space --hashes "$TMPROOT/edited/fake_gen.lua"
if printf '%s' "$OUTPUT" | grep -q "template	$th"; then fail "an edited generator kept the template hash"; else ok; fi

# the same run again: everything answered from the store
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$S"
expect_output "0 measured (0 failed), 12 answered from the store" "second run"

# a generator that raises for U=4 with G=1: those two are space errors (the space's own code failed),
# the run goes on
R2="$TMPROOT/results-raises"
GEN=raises expect_status 3 -- "$BIN" run --jobs 2 --no-progress --results "$R2" "$S"
[ "$(st "$R2/Fake_H200/fake_gen.jsonl" ok)" -eq 10 ] && ok || fail "raises: not 10 ok records"
[ "$(st "$R2/Fake_H200/fake_gen.jsonl" space_error)" -eq 2 ] && ok || fail "raises: not 2 space errors"
expect_output "2 configurations failed in the space's own functions" "the end line counts the generator's failures"
fn=$(line_of "raises = function")
OUTPUT=$(cat "$R2/Fake_H200/fake_gen.jsonl") # the records' messages
expect_output "$S:$fn: template_edit failed for U=4,G=1,S=0: " "the generator's error names its line and the configuration"
expect_output "fake_gen.lua:$((fn + 1)): cannot unroll by 4 with G=1" "... then Lua's message (its path cut short)"
# ... and one that returns a number for U=2
GEN=number expect_status 3 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/results-number" "$S"
OUTPUT=$(cat "$TMPROOT/results-number/Fake_H200/fake_gen.jsonl")
expect_output "$S:$(line_of "number = function"): template_edit returned number for U=2,G=0,S=0 (expected the program's text, a string)" \
  "a bad return type"
[ "$(st "$TMPROOT/results-number/Fake_H200/fake_gen.jsonl" ok)" -eq 8 ] && ok || fail "number: not 8 ok records"

# the U=4 texts alone hold the 4th unrolled statement: made a compile error, exactly those fail
R3="$TMPROOT/results-broken"
GEN=broken expect_status 3 -- "$BIN" run --jobs 2 --no-progress --results "$R3" "$S"
n=$(grep '"status":"compile_error"' "$R3/Fake_H200/fake_gen.jsonl" | grep -c '"config":"U=4,' || true)
[ "$n" -eq 4 ] && [ "$(st "$R3/Fake_H200/fake_gen.jsonl" ok)" -eq 8 ] && ok || fail "broken: $n U=4 compile errors (wanted 4, 8 ok)"
OUTPUT=$(grep '"config":"U=4,' "$R3/Fake_H200/fake_gen.jsonl")
expect_output "fake_gen.cu(" "the planted error names the template"
expect_output 'identifier \"undefined_value\" is undefined' "the planted error"

# the reference: p = reference.defines (above); without them the run stops and says what to give
REF=nodefines expect_status 1 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/results-nd" "$S"
expect_output "the reference kernel 'copy_ref' is compiled once from the space's template" "no reference.defines"
expect_output "$S:$(line_of "^local function render"): template_edit failed for p = {}" "the function's line"
expect_output "give reference.defines = { NAME = value, ... } with every parameter the function reads, or reference.params" \
  "what to give"
[ ! -e "$TMPROOT/results-nd/Fake_H200/fake_gen.jsonl" ] || [ "$(st "$TMPROOT/results-nd/Fake_H200/fake_gen.jsonl" ok)" -eq 0 ] && ok ||
  fail "records without a reference"
# reference.params: run from each configuration's program, its generated text
REF=params expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/results-p" "$S"
[ "$(st "$TMPROOT/results-p/Fake_H200/fake_gen.jsonl" ok)" -eq 12 ] && ok || fail "reference.params: not 12 ok"

# no header: a build from it compiles the template with -D's, where no generator runs
expect_status 1 -- "$BIN" header "$S" "$R" -o "$TMPROOT/h.h"
expect_output "its template_edit is a generator (function(text, p): a program text per configuration)" "header refuses"
[ ! -e "$TMPROOT/h.h" ] && ok || fail "header wrote a file"

# compile-only: 6 programs for 6 texts (a fresh cache); the generator's failures listed as compile errors
export CUTUNE_CACHE="$TMPROOT/cache-co"
expect_status 0 -- "$BIN" run --compile-only --jobs 2 --no-progress "$S"
expect_output "12 configurations for sm_90" "compile-only"
expect_output ": 6 compiled, 6 sharing another's module (runtime parameters), 0 from the cache, 0 failed" "compile-only"
GEN=raises expect_status 3 -- "$BIN" run --compile-only --jobs 2 --no-progress "$S"
expect_output "2 whose program template_edit could not make (not compiled)" "compile-only: the generator's failures"
expect_output "U=4,G=1,S=1: $S:$fn: template_edit failed for U=4,G=1,S=1" "compile-only lists them"
# batches: equal texts share an NVRTC program (flat: one text, U as -D), different ones never do
C="$TMPROOT/cache-batch"
GEN=flat expect_status 0 -- "$BIN" run --compile-only --batch 3 --jobs 1 --no-progress --cache "$C" "$S"
expect_output "NVRTC programs: 2 for 3 compiled configurations (2 configurations in 1 batch" "equal texts batch"
expect_status 0 -- "$BIN" run --compile-only --batch 3 --jobs 1 --no-progress --cache "$C-2" "$S"
expect_output "NVRTC programs: 6 for 6 compiled configurations" "different texts do not batch"
if printf '%s' "$OUTPUT" | grep -q "batch of"; then fail "texts that differ were batched"; else ok; fi

# explain's path (__profile-one): the configuration's own text, and the generator's error
export CUTUNE_CACHE="$TMPROOT/cache"
expect_status 0 -- "$BIN" __profile-one "$S" U=4,G=1,S=0 0
expect_output '"status":"ok"' "__profile-one"
GEN=raises expect_status 1 -- "$BIN" __profile-one "$S" U=4,G=1,S=0 0
expect_output "template_edit failed for U=4,G=1,S=0" "__profile-one: the generator's error"

# a launch sequence (fake_gen_seq.lua): pass 2's program is generated with its launch's defines in p
export CUTUNE_CACHE="$TMPROOT/cache"
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/results-seq" "$d/fake_gen_seq.lua"
[ "$(st "$TMPROOT/results-seq/Fake_H200/fake_gen_seq.jsonl" ok)" -eq 3 ] && ok || fail "the sequence: not 3 ok"
GEN=pass2 expect_status 4 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/results-seq2" "$d/fake_gen_seq.lua"
OUTPUT=$(cat "$TMPROOT/results-seq2/Fake_H200/fake_gen_seq.jsonl")
fn=$(grep -n "template_edit = function" "$d/fake_gen_seq.lua" | cut -d: -f1)
expect_output "fake_gen_seq.lua:$fn: template_edit failed for G=16, with PASS=2 set in p: " "pass 2's program and its p"

# the once-per-run form (function(text)): one text, a module per -DU
GEN=once expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$TMPROOT/results-once" "$S"
expect_output "modules: 12 configurations from 3 compiled modules" "once per run"
[ "$(st "$TMPROOT/results-once/Fake_H200/fake_gen.jsonl" ok)" -eq 12 ] && ok || fail "once: not 12 ok"
finish
