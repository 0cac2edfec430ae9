#!/usr/bin/env bash
# Stale code (issue 8, item 9): a header the template #includes is part of the compile-cache
# key. Edit the header so that no configuration compiles: the next run must recompile (cache
# miss) and report the errors, not serve the old cubins. Restore it: served from the cache
# again. (The store's side, re-measuring after a header edit, is in cli_fake_run.sh.)
. "$(dirname "$0")/lib_cli.sh"
set -e
d="$TMPROOT/space"
mkdir -p "$d/inc"
cat > "$d/inc.lua" <<'LUA'
local ct = require "cutune"
return ct.space {
  name = "inc",
  template = "inc.cu",
  kernel = "scale",
  params = { ct.param("B", {64, 128}) },
  problems = { {n = 4096} },
  args = { ct.output("float", "n"), ct.input("float", "n"), ct.scalar("int", "n") },
  block = function(p, n) return p.B end,
  grid = function(p, n) return ct.cdiv(n.n, p.B) end,
  reference = { kernel = "scale_ref", block = {128}, grid = function(n) return ct.cdiv(n.n, 128) end },
}
LUA
cat > "$d/inc.cu" <<'CU'
#ifndef CUTUNE_REFERENCE
#include "inc/factor.cuh"
extern "C" __global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * FACTOR;
}
#endif
extern "C" __global__ void scale_ref(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f;
}
CU
good='#include "detail.cuh"
#define FACTOR DETAIL'
printf '%s\n' "$good" > "$d/inc/factor.cuh"
echo '#define DETAIL 2.0f' > "$d/inc/detail.cuh"
co() { run_any "$BIN" run --compile-only --arch sm_90 --jobs 1 --no-progress "$d/inc.lua"; }

co
expect_output "2 compiled, 0 from the cache, 0 failed" "first run"
co
expect_output "0 compiled, 2 from the cache, 0 failed" "second run (warm)"
# break the header included by the header: every configuration must fail to compile now (the
# reference does not use it, so the run goes on to report them; cutune compiles the reference
# first and would stop there otherwise)
echo '#define DETAIL this_is_not_cuda' > "$d/inc/detail.cuh"
co
expect_output "0 from the cache, 2 failed" "after the header edit (cache miss, compile errors)"
expect_output "this_is_not_cuda" "the compiler's message"
# restore it: the old entries are valid again
echo '#define DETAIL 2.0f' > "$d/inc/detail.cuh"
co
expect_output "0 compiled, 2 from the cache, 0 failed" "after restoring the header"
finish
