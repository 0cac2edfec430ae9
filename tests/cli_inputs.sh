#!/usr/bin/env bash
# What the user is told (issue 8): exit statuses a script can act on, the reference checked
# first, options that do what they say (--strategy, --cache, -q, -v, --arch, help for every
# command), whole messages for invalid configurations, whole lines in a shared log, replays of
# gzipped stores and warnings for garbage lines, and `cmake --install`.
. "$(dirname "$0")/lib_cli.sh"
set -e
S=tests/spaces
CO=(run --compile-only --jobs 2 --arch sm_90 --no-progress)

# the reference is compiled first: broken or misspelled, the run fails (it said "0 failed", 0)
expect_status 1 -- "$BIN" "${CO[@]}" $S/ref_broken.lua
expect_output "the reference kernel 'scale_ref' does not compile: tests/spaces/ref_broken.cu(8): error"
expect_status 1 -- "$BIN" "${CO[@]}" $S/ref_misspelled.lua
expect_output "kernel 'scale_rfe' not found in the compiled program"
# a reference that reads a parameter the template leaves undefined: told to give reference.defines
expect_status 1 -- "$BIN" "${CO[@]}" $S/ref_undef.lua
expect_output 'identifier "B" is undefined'
expect_output "give the values it needs as reference.defines = { B = ..., ... }"

# exit status: 3 some configurations failed, 4 none succeeded, 0 all fine
expect_status 3 -- "$BIN" "${CO[@]}" $S/partly_broken.lua
expect_output "2 failed (their messages are above; failed configurations are data: exit status 3)"
expect_status 4 -- "$BIN" "${CO[@]}" $S/all_broken.lua
expect_output "none succeeded: exit status 4"
expect_status 0 -- "$BIN" "${CO[@]}" $S/small_ok.lua
expect_status 0 -- "$BIN" run --help
expect_output "130  interrupted"
expect_output "architectures NVRTC"

# an invalid geometry: cut in the table, whole under it; over a limit is data, not a failure
# (exit 0, counted apart)
expect_status 0 -- "$BIN" "${CO[@]}" $S/bad_geometry.lua
expect_output "0 failed, 1 invalid (over a limit of sm_90)"
expect_output "X=1,B=2048: tests/spaces/bad_geometry.lua:10: block for X=1,B=2048 on problem n=4096 is (2048): each dimension must be an integer in 1..1024 (x is 2048)"

# options validated when parsed, not ignored
expect_status 2 -- "$BIN" run --strategy nosuch $S/small_ok.lua
expect_output "--strategy 'nosuch' is not a strategy (strategies: exhaustive"
expect_status 1 -- "$BIN" "${CO[@]}" --cache /proc/nope $S/small_ok.lua
expect_output "--cache /proc/nope cannot be used as the compile cache"
expect_status 2 -- "$BIN" run --arch sm_70 $S/small_ok.lua
expect_output "supports: sm_75"
expect_status 0 -- "$BIN" run --compile-only --jobs 1 --arch sm_90a --no-progress $S/small_ok.lua

# -q: no progress lines; -v: a line per configuration
expect_status 0 -- "$BIN" run --compile-only --jobs 2 --arch sm_90 -q $S/small_ok.lua
if printf '%s' "$OUTPUT" | grep -q '^compile: '; then fail "-q still prints progress lines"; else ok; fi
expect_status 3 -- "$BIN" run --compile-only --jobs 2 --arch sm_90 -v --no-progress $S/partly_broken.lua
n=$(printf '%s\n' "$OUTPUT" | grep -cE '^X=[0-9],B=[0-9]+ +(ok|compile_error)' || true)
[ "$n" -ge 6 ] && ok || fail "-v printed $n configuration lines (wanted 6)"

# every command has help
for c in run score devices help version; do
  expect_status 0 -- "$BIN" help $c
  expect_output "usage: cutune"
done

# a shared log: stdout is line-buffered, so its header comes before the progress on stderr
# (block-buffered, it came out at exit, after every progress line)
set +e; "$BIN" "${CO[@]}" $S/small_ok.lua > "$TMPROOT/log" 2>&1; set -e
first_out=$(grep -n 'valid configurations of' "$TMPROOT/log" | head -1 | cut -d: -f1)
first_err=$(grep -n '^compile: ' "$TMPROOT/log" | head -1 | cut -d: -f1)
if [ -n "$first_out" ] && [ -n "$first_err" ] && [ "$first_out" -lt "$first_err" ]; then ok
else fail "in a shared log the header (line ${first_out:-?}) came after the progress (line ${first_err:-?})"; fi

# replay: a gzipped store replays; garbage lines and non-positive times are warned about
gzip -dc results/NVIDIA_H200/transpose.jsonl.gz | head -60 > "$TMPROOT/t60.jsonl"
{ head -40 "$TMPROOT/t60.jsonl"; echo 'garbage line'; sed -n 41,60p "$TMPROOT/t60.jsonl"; } > "$TMPROOT/t.jsonl"
gzip -c "$TMPROOT/t.jsonl" > "$TMPROOT/t.jsonl.gz"
expect_status 0 -- "$BIN" run --replay "$TMPROOT/t.jsonl.gz" --budget 10
expect_output "60 configurations"
expect_output "t.jsonl.gz:41: not a cutune record"

# cmake --install puts a working binary and the example space under the prefix
BDIR=$(dirname "$BIN")
if [ -f "$BDIR/cmake_install.cmake" ]; then
  expect_status 0 -- cmake --install "$BDIR" --prefix "$TMPROOT/prefix"
  expect_status 0 -- "$TMPROOT/prefix/bin/cutune" version
  expect_output "cutune "
  [ -f "$TMPROOT/prefix/share/cutune/lua/transpose_space.lua" ] && [ -f "$TMPROOT/prefix/share/cutune/templates/transpose.cu" ] && ok || fail "example space not installed"
fi
finish
