#!/usr/bin/env bash
# The start of a run overlaps (docs/MEASURE.md, "Where the start goes"): the GPU worker sends
# its device's identity (IDENT) right after cuInit, and the coordinator compiles the reference
# for that architecture while the worker creates its context and finishes its start (HELLO).
# Shown without timing anything: the fake driver's context waits until the run's trace says
# "reference compiled" (FAKE_CUDA_CTX_WAIT), so a coordinator that waited for HELLO before
# compiling would never get it (the fake gives up after 60 s and the run fails); and the
# trace's lines come in that order: IDENT, the reference, the context, the workers up, the
# problem set up. The same with two models (two references, sm_90 and sm_80, both before
# either context), and for `cutune __profile-one` (the reference compiled in-process). The
# helper kernels load from their PTX where the driver refuses their fatbin.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
SPACE=tests/spaces/fake_copy.lua
# in_order FILE LINE... : each LINE (a fixed string) is in FILE, each after the one before it
in_order() {
  local file=$1 prev=0 n; shift
  for want in "$@"; do
    n=$(grep -nF -- "$want" "$file" | head -1 | cut -d: -f1)
    if [ -z "$n" ]; then fail "$file lacks '$want'"; cat "$file" >&2; return; fi
    if [ "$n" -le "$prev" ]; then fail "$file: '$want' (line $n) is not after line $prev"; cat "$file" >&2; return; fi
    prev=$n
  done
  ok
}

T="$TMPROOT/one.trace"
CUTUNE_TRACE="$T" FAKE_CUDA_CTX_WAIT="reference compiled" \
  expect_status 0 -- "$BIN" run --no-progress --jobs 2 --results "$TMPROOT/one" $SPACE
expect_output "12 configurations measured"
in_order "$T" "GPU workers spawned (1)" "GPU worker: IDENT (sm_90)" "reference compiled" "GPU worker: context" \
  "GPU worker: copy bandwidth measured" "GPU workers up (1)" "problem(s) set up"
in_order "$T" "GPU workers identified (1; the first: Fake H200, sm_90)" "compile pool open" "reference compiled"

T="$TMPROOT/two.trace"
CUTUNE_FAKE_DEVICES="NVIDIA H200,NVIDIA A100-SXM4-80GB" CUTUNE_TRACE="$T" FAKE_CUDA_CTX_WAIT="reference compiled" \
  expect_status 0 -- "$BIN" run --no-progress --jobs 2 --devices all --results "$TMPROOT/two" $SPACE
expect_output "NVIDIA H200 (sm_90"
expect_output "NVIDIA A100-SXM4-80GB (sm_80"
expect_output "device-to-device copy 4300 GB/s" # the groups' info is HELLO's, copy bandwidth and all
in_order "$T" "GPU worker: IDENT (sm_90)" "reference compiled" "GPU worker: context" "GPU workers up (2)"
in_order "$T" "GPU worker: IDENT (sm_80)" "reference compiled"
[ "$(grep -c "GPU worker: context" "$T")" -eq 2 ] && ok || fail "two contexts wanted in $T"
for f in "$TMPROOT"/two/NVIDIA_H200/fake_copy.jsonl "$TMPROOT"/two/NVIDIA_A100-SXM4-80GB/fake_copy.jsonl; do
  [ "$(grep -c '"status": *"ok"' "$f")" -eq 12 ] && ok || fail "$f: not 12 ok records"
done

# `cutune __profile-one` (what `explain` runs): its reference compiled in this process, also
# before the worker's context
T="$TMPROOT/profile.trace"
CUTUNE_TRACE="$T" FAKE_CUDA_CTX_WAIT="reference compiled" \
  expect_status 0 -- "$BIN" __profile-one $SPACE "BLOCK=128,STRIDE=1" "n=65536"
expect_output "\"status\":\"ok\""
in_order "$T" "GPU worker: IDENT (sm_90)" "reference compiled" "GPU worker: context" "GPU workers up (1)"
# the worker's helper kernels: the fatbin (machine code, no JIT), or their PTX where the driver
# refuses the fatbin (FAKE_CUDA_REFUSE_FATBIN), the run unchanged
T="$TMPROOT/helpers.trace"
CUTUNE_TRACE="$T" expect_status 0 -- "$BIN" run --no-progress --jobs 2 --results "$TMPROOT/fb" $SPACE
if grep -q "fatbin refused" "$T"; then fail "the fatbin was refused without FAKE_CUDA_REFUSE_FATBIN"; else ok; fi
T="$TMPROOT/ptx.trace"
CUTUNE_TRACE="$T" FAKE_CUDA_REFUSE_FATBIN=1 expect_status 0 -- "$BIN" run --no-progress --jobs 2 --results "$TMPROOT/ptx" $SPACE
expect_output "12 configurations measured" "helpers from their PTX"
in_order "$T" "GPU worker: context" "GPU worker: the helpers' fatbin refused (" "GPU worker: helper kernels loaded" \
  "GPU workers up (1)"
finish
