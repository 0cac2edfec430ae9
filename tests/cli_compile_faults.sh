#!/usr/bin/env bash
# Compile faults without a GPU (issue 8, item 12): a compile worker that stops (SIGSTOP; it
# stalled a whole run before compiles had a deadline) is killed at --compile-timeout and its
# configurations are recorded compile_timeout while the others compile; the run ends. A worker
# killed from outside is reported as such, not as the configuration's compile error. (Resume
# retrying a lost compile is in cli_fake_run.sh, which has a store.) The workers' test hooks
# CUTUNE_COMPILE_WORKER_STOP / _CRASH fire on a job with that option, in the test-only binary
# cutune-hooks; the shipped cutune ignores them.
. "$(dirname "$0")/lib_cli.sh"
set -e
need_hooks
S=tests/spaces/fake_run.lua  # 12 configurations: B (64 128 256) x COVER (0 1) x U (1 2)
export CUTUNE_COMPILE_WORKER_STOP=-DB=64
run_any timeout 120 "$HOOKS" run --compile-only --compile-timeout 1 --jobs 2 --no-cache --no-progress "$S"
[ "$STATUS" -ne 124 ] && ok || fail "the run hung on a stopped compile worker"
expect_output "12 configurations for sm_90" "stopped workers"
expect_output "0 from the cache, 4 failed" "stopped workers (the 4 with B=64)"
expect_output "compile_timeout" "the table's status"
expect_output "took longer than 1 s (--compile-timeout)" "the message"
unset CUTUNE_COMPILE_WORKER_STOP
export CUTUNE_COMPILE_WORKER_CRASH=-DB=128
run_any timeout 120 "$HOOKS" run --compile-only --jobs 2 --no-cache --no-progress "$S"
expect_output "0 from the cache, 4 failed" "killed workers (the 4 with B=128)"
expect_output "worker_lost" "the table's status"
expect_output "killed from outside: not the configuration's fault" "the message"
if printf '%s' "$OUTPUT" | grep -q " compile_error"; then fail "a killed worker was reported as a compile error"; else ok; fi
# the shipped binary carries no hooks: the same marker compiles normally
run_any timeout 120 "$BIN" run --compile-only --jobs 2 --no-progress "$S"
expect_output "0 failed" "the shipped cutune obeys no fault hook"
if printf '%s' "$OUTPUT" | grep -q "worker_lost"; then fail "the shipped cutune obeyed CUTUNE_COMPILE_WORKER_CRASH"; else ok; fi
finish
