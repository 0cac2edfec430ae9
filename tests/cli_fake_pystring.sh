#!/usr/bin/env bash
# A kernel given as a Python string (template_var), as Kernel Tuner's scripts give them, end to end
# through the fake libcuda.so.1 (tests/fake): the string is found inside a function, and the
# reference, the same kernel under reference.defines, is compiled from the string as the
# configurations are (it was compiled from the whole Python file, a compile error).
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/pystring/* "$d/"
R="$TMPROOT/results"
st() { grep -c "\"status\":\"$2\"" "$R/Fake_H200/$1.jsonl" || true; }

expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_pystring.lua"
[ "$(st fake_pystring ok)" -eq 3 ] && ok || fail "fake_pystring: $(st fake_pystring ok) ok (wanted 3)"
finish
