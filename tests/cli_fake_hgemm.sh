#!/usr/bin/env bash
# A bfloat16 GEMM space through the fake libcuda.so.1 (tests/spaces/fake_hgemm.lua; the fake
# emulates its kernels by name): the bf16 fill (the fake refuses inputs that are not bfloat16
# values in [-1, 1]), the bf16 comparison (an output 8 ulps off in one element is named, with its
# bf16 bits) and lua/hgemm.lua's tolerance at K = 4096: float32 accumulation passes, and so does
# one that truncates every addition; a missing k16 step and one k missing from every element
# fail. The space's arch: on the fake H200 (sm_90) the configurations that need sm_90a are
# compiled for sm_90a (their records say so); on a fake A100 (sm_80) they are recorded invalid,
# never compiled, with the reason; --arch sm_90a is the H200's own architecture, sm_80 is not.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
cd "$SRC"
R="$TMPROOT/results"
S=tests/spaces/fake_hgemm.lua
CUTUNE_CUBLAS="$FAKE/libcuda.so.1" run_any "$BIN" run --jobs 1 --no-progress --results "$R" "$S"
[ "$STATUS" = 3 ] && ok || fail "exit $STATUS (wanted 3: some configurations failed)"
expect_output "cuBLAS GemmEx 32x24x4096, BF16 in, FP32 compute" "GemmEx note"
expect_output "TFLOP/s  % cuBLAS" "table"
STORE="$R/Fake_H200/fake_hgemm.jsonl"
python3 - "$STORE" <<'PY' && ok || fail "the records do not say what the planted variants should"
import json, sys
recs = {json.loads(l)["config"]: json.loads(l) for l in open(sys.argv[1]) if l.strip()}
assert len(recs) == 10, sorted(recs)
for w in (0, 1):
    get = lambda v: recs["W=%d,V=%d" % (w, v)]
    assert get(0)["status"] == "ok" and get(1)["status"] == "ok", (get(0)["message"], get(1)["message"])
    for v, out in ((2, "'C'"), (3, "'C'"), (4, "'Acopy'")):
        r = get(v)
        assert r["status"] == "wrong_result" and out in r["message"], (v, r["message"])
    m = get(4)["message"]
    assert "1 of 131072 elements" in m and "index 7" in m and "(0x" in m, m
    assert "tolerance 0.00390625" in m, m  # 16 * 2^-24 * 4096
    arch = get(0)["provenance"]["arch"]
    assert arch == ("sm_90a" if w else "sm_90"), (w, arch)
PY

# a fake A100: what needs sm_90a is not for it
R2="$TMPROOT/results2"
CUTUNE_FAKE_DEVICES="NVIDIA A100-SXM4-80GB" run_any "$BIN" run --jobs 1 --no-progress --results "$R2" "$S"
expect_output "5 invalid" "A100 failures"
python3 - "$R2/NVIDIA_A100-SXM4-80GB/fake_hgemm.jsonl" <<'PY' && ok || fail "the W=1 records on the A100"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
w1 = [r for r in recs if r["config"].startswith("W=1")]
assert len(w1) == 5, len(w1)
for r in w1:
    assert r["status"] == "invalid", r["status"]
    assert r["message"] == "needs sm_90a (architecture-specific: compute capability 9.0 only), not sm_80", r["message"]
    assert r["resources"]["regs"] in (None, -1) and r["compile_ms"] in (None, 0, -1), "compiled: %s" % r
PY
# --arch names the device's architecture or its 'a' variant
CUTUNE_FAKE_DEVICES="NVIDIA A100-SXM4-80GB" expect_status 1 -- "$BIN" run --jobs 1 --no-progress --arch sm_90a --results "$R2" "$S"
expect_output "--arch sm_90a does not match the device" "--arch on the A100"
run_any "$BIN" run --jobs 1 --no-progress --arch sm_90a --results "$TMPROOT/r3" "$S"
[ "$STATUS" = 3 ] && ok || fail "--arch sm_90a on the H200: exit $STATUS (wanted 3: the planted failures)"
grep -q '"arch":"sm_90a"' "$TMPROOT/r3/Fake_H200/fake_hgemm.jsonl" && ! grep -q '"arch":"sm_90"' "$TMPROOT/r3/Fake_H200/fake_hgemm.jsonl" &&
  ok || fail "--arch sm_90a: not every record compiled for sm_90a"
# compile-only for sm_80: the W=1 configurations are listed as not for it, and nothing failed
expect_status 0 -- "$BIN" run --compile-only --jobs 1 --no-progress --arch sm_80 "$S"
expect_output "5 not for sm_80 (the space's arch: not compiled)" "compile-only sm_80"
expect_output " 0 failed" "compile-only sm_80"
finish
