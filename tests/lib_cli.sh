# Sourced by the tests/cli_*.sh scripts: paths from CTest's environment and small checks.
set -u
BIN=${CUTUNE_BIN:?CUTUNE_BIN is not set (run through ctest)}
SRC=${CUTUNE_SRC:-.}
TMPROOT=${CUTUNE_TMP:-/tmp}/$(basename "$0" .sh)
rm -rf "$TMPROOT" && mkdir -p "$TMPROOT"
export CUTUNE_CACHE="$TMPROOT/cache"
fails=0
checks=0
ok() { checks=$((checks + 1)); }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }
# expect_status CODE -- command...   (stdout+stderr captured in $OUTPUT)
expect_status() {
  local want=$1; shift; [ "$1" = "--" ] && shift
  set +e; OUTPUT=$("$@" 2>&1); local got=$?; set -e
  if [ "$got" -ne "$want" ]; then fail "exit $got (wanted $want): $*"; echo "$OUTPUT" | tail -20 >&2; else ok; fi
}
expect_output() { # expect_output SUBSTRING [what]
  if printf '%s' "$OUTPUT" | grep -qF -- "$1"; then ok; else fail "${2:-output} lacks '$1'"; echo "$OUTPUT" | tail -20 >&2; fi
}
finish() { echo "$((checks - fails)) passed, $fails failed"; [ "$fails" -eq 0 ]; }
# gpu_or_skip: exit 77 unless cutune finds a CUDA device
gpu_or_skip() {
  local n
  n=$("$BIN" devices --count 2>/dev/null || echo 0)
  if [ "${n:-0}" -lt 1 ]; then echo "skipped: no CUDA device here"; exit 77; fi
}
# run_any command...   ($OUTPUT and $STATUS, nothing asserted: for runs whose exit status
# is not what the test is about, e.g. one with failed configurations)
run_any() {
  set +e; OUTPUT=$("$@" 2>&1); STATUS=$?; set -e
}
# need_hooks: $HOOKS is cutune-hooks, the test-only binary whose compile workers obey
# CUTUNE_COMPILE_WORKER_CRASH/ABORT/STOP (CMake option CUTUNE_TEST_HOOKS), or exit 77 without it
need_hooks() {
  HOOKS=${CUTUNE_HOOKS_BIN:-}
  [ -n "$HOOKS" ] && [ -x "$HOOKS" ] || { echo "skipped: cutune-hooks was not built (-DCUTUNE_TEST_HOOKS=ON)"; exit 77; }
}
# use_fake_cuda: the fake libcuda.so.1 (tests/fake) first on the library path, or exit 77 where
# it was not built; $FAKE is its folder
use_fake_cuda() {
  FAKE="$(dirname "$BIN")/fakecuda"
  [ -f "$FAKE/libcuda.so.1" ] || { echo "skipped: the fake libcuda.so.1 was not built"; exit 77; }
  export LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}
