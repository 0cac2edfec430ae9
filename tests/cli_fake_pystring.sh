#!/usr/bin/env bash
# A kernel given as a Python string (template_var), as Kernel Tuner's scripts give them, end to end
# through the fake libcuda.so.1 (tests/fake): the string is found inside a function, and the
# reference, the same kernel under reference.defines, is compiled from the string as the
# configurations are (it was compiled from the whole Python file, a compile error); a string
# that is not the kernel as it is (a %s placeholder, Jinja's {{ name }}, a string passed to
# Template(...)) made the program by the space's template_edit, and its errors; a compile error
# in the string names the line of the Python file (not the line within the string), also after
# an edit that adds or removes lines; header, best and report take --kernel-path as run does.
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

# the %s placeholder: without an edit NVRTC fails on it; the edit makes it the macro
PYVAR=kernel_format expect_status 1 -- "$BIN" run --compile-only --jobs 2 --no-progress "$d/fake_pystring.lua"
expect_output "does not compile" "kernel_format unedited"
for e in "kernel_format percent" "kernel_jinja jinja" "kernel_wrapped jinja"; do
  set -- $e
  R="$TMPROOT/results-$1"
  PYVAR=$1 EDIT=$2 expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_pystring.lua"
  [ "$(st fake_pystring ok)" -eq 3 ] && ok || fail "$1 with $2: $(st fake_pystring ok) ok (wanted 3)"
done
# the edit changes the program: another options hash, so the store does not answer the unedited run's
R="$TMPROOT/results"
PYVAR=kernel_jinja EDIT=jinja expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_pystring.lua"
expect_output "3 measured" "an edited program is measured again"
PYVAR=kernel_format EDIT=number expect_status 1 -- "$BIN" run --compile-only --jobs 2 --no-progress "$d/fake_pystring.lua"
expect_output "fake_pystring.lua:16: template_edit returned number (expected the program's text, a string)" "number"
# kernel_broken: BLOCK=256 does not compile; NVRTC's message names kernels.py and the error's
# line there (it counted from the string's first line)
line=$(grep -n "undefined_value;" "$d/kernels.py" | cut -d: -f1)
for e in "" prepend drop; do
  PYVAR=kernel_broken EDIT=$e expect_status 3 -- "$BIN" run --compile-only --no-cache --jobs 2 --no-progress \
    "$d/fake_pystring.lua"
  expect_output "BLOCK=256: $d/kernels.py($line): error: identifier \"undefined_value\" is undefined" \
    "kernel_broken's error line${e:+ after the $e edit}"
done

# the script kept in a folder of its own (as Kernel Tuner's examples are): every command that
# loads the space finds it through --kernel-path, as run does, and names where it looked without
R="$TMPROOT/results-kp"
mkdir -p "$TMPROOT/kp/scripts" "$TMPROOT/kp/spaces"
cp "$d/kernels.py" "$TMPROOT/kp/scripts/" && cp "$d/fake_pystring.lua" "$TMPROOT/kp/spaces/"
K="$TMPROOT/kp/scripts" S="$TMPROOT/kp/spaces/fake_pystring.lua"
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" --kernel-path "$K" "$S"
expect_status 0 -- "$BIN" header "$S" "$R" --kernel-path "$K" -o "$TMPROOT/kp/h.h"
expect_output "compiles that file itself with each configuration's -D values, not the program cutune measured" \
  "header warns that its build cannot compile a template_var program"
grep -q "cutune-config" "$TMPROOT/kp/h.h" && ok || fail "header --kernel-path wrote no configuration"
expect_status 1 -- "$BIN" header "$S" "$R" -o "$TMPROOT/kp/h2.h"
expect_output "template 'kernels.py' not found" "header without --kernel-path"
expect_status 0 -- "$BIN" best "$R" --space "$S" --kernel-path "$K"
expect_output "fastest:" "best --space --kernel-path"
expect_status 0 -- "$BIN" report "$S" --results "$R" --kernel-path "$K" -o "$TMPROOT/kp/r.html"
expect_status 1 -- "$BIN" report "$S" --results "$R" -o "$TMPROOT/kp/r.html"
expect_output "template 'kernels.py' not found" "report without --kernel-path"
finish
