#!/usr/bin/env bash
# The cuBLAS baseline of a GEMM space (cublas_sgemm), through the fake libcuda.so.1 and its fake
# cuBLAS (tests/fake; CUTUNE_CUBLAS points the worker at it): the run notes cuBLAS's time and
# rate per problem, the table shows TFLOP/s and % cuBLAS, and every record's cublas_share is
# the baseline's time over its own median. Without cuBLAS (a library that does not exist) the
# run says why and the table has no % cuBLAS column; nothing else changes. A space whose
# cublas_sgemm does not give three integers is refused with the file and line. The same space
# with cublas_gemmex (bf16 and f16 inputs) times cublasGemmEx (the fake refuses it unless the
# inputs are 16-bit, C float32, CUBLAS_COMPUTE_32F and the default math mode) at the fake's
# 800 TFLOP/s; a bad cublas_gemmex, or one beside cublas_sgemm, is refused with the file and line.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/fake_gemm.lua tests/spaces/fake_run.cu tests/spaces/fake_run_inc.cuh "$d/"
R="$TMPROOT/results"

# 1. with the fake cuBLAS: 2*512*256*128 flops at 50 TFLOP/s = 0.67 us
CUTUNE_CUBLAS="$FAKE/libcuda.so.1" expect_status 0 -- "$BIN" run --jobs 1 --no-progress --results "$R" "$d/fake_gemm.lua"
expect_output "cuBLAS SGEMM 512x256x128, strict FP32: 0.7 us, 50.00 TFLOP/s (the % cuBLAS reference)" "note"
expect_output "TFLOP/s  % cuBLAS" "table header"
STORE="$R/Fake_H200/fake_gemm.jsonl"
python3 - "$STORE" <<'PY' && ok || fail "records' cublas_share is not baseline / median"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(recs) == 6, len(recs)
base = 2 * 512 * 256 * 128 / 50e12 * 1e3  # ms
for r in recs:
    share = r["cublas_share"]
    assert abs(share - base / r["t_median"]) < 1e-3 * share, (share, base, r["t_median"])
PY

# 2. no cuBLAS: said, and the table has no % cuBLAS column
R2="$TMPROOT/results2"
CUTUNE_CUBLAS="$TMPROOT/no-such-libcublas.so" expect_status 0 -- "$BIN" run --jobs 1 --no-progress --results "$R2" "$d/fake_gemm.lua"
expect_output "no cuBLAS baseline (cuBLAS not found" "note without cuBLAS"
printf '%s' "$OUTPUT" | grep -qF "% cuBLAS  " && fail "a % cuBLAS column without cuBLAS" || ok
expect_output "TFLOP/s" "table without cuBLAS"
grep -q cublas_share "$R2/Fake_H200/fake_gemm.jsonl" && fail "cublas_share recorded without cuBLAS" || ok

# 3. a bad cublas_sgemm names the file and line
sed 's/return n.M, n.N, n.K end/return n.M, n.N end/' "$d/fake_gemm.lua" > "$d/bad_gemm.lua"
expect_status 1 -- "$BIN" run --jobs 1 --no-progress --results "$TMPROOT/r3" "$d/bad_gemm.lua"
expect_output "bad_gemm.lua:17: cublas_sgemm on problem K=128,M=512,N=256,n=65536 must give three integers M, N, K" "bad shape"
# 4. cublas_gemmex: cublasGemmEx of the inputs' type, FP32 compute
for ty in bf16 f16; do
  sed "s/cublas_sgemm = function(n) return n.M, n.N, n.K end/cublas_gemmex = function(n) return n.M, n.N, n.K, \"$ty\" end/" \
    "$d/fake_gemm.lua" > "$d/ex_$ty.lua"
  want="BF16 in"; [ $ty = f16 ] && want="FP16 in"
  CUTUNE_CUBLAS="$FAKE/libcuda.so.1" expect_status 0 -- "$BIN" run --jobs 1 --no-progress --results "$R/$ty" "$d/ex_$ty.lua"
  expect_output "cuBLAS GemmEx 512x256x128, $want, FP32 compute: 0.0 us, 800.00 TFLOP/s (the % cuBLAS reference)" "GemmEx $ty"
  python3 - "$R/$ty/Fake_H200/fake_gemm.jsonl" <<'PY' && ok || fail "GemmEx $ty: cublas_share is not baseline / median"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
base = 2 * 512 * 256 * 128 / 800e12 * 1e3
assert len(recs) == 6 and all(abs(r["cublas_share"] - base / r["t_median"]) < 1e-3 * r["cublas_share"] for r in recs)
PY
done
sed 's/"bf16" end/"f32" end/' "$d/ex_bf16.lua" > "$d/bad_ex.lua"
expect_status 1 -- "$BIN" run --jobs 1 --no-progress --results "$TMPROOT/r4" "$d/bad_ex.lua"
expect_output "bad_ex.lua:17: cublas_gemmex on problem K=128,M=512,N=256,n=65536 must give three integers M, N, K from 1 to 1048576 and the inputs' type \"bf16\" or \"f16\" (got 4 values)" "bad gemmex"
sed 's/^  cublas_gemmex = /  cublas_sgemm = function(n) return n.M, n.N, n.K end,\n  cublas_gemmex = /' "$d/ex_bf16.lua" > "$d/both.lua"
expect_status 1 -- "$BIN" run --jobs 1 --no-progress --results "$TMPROOT/r5" "$d/both.lua"
expect_output "cublas_sgemm and cublas_gemmex are two baselines: give one" "both baselines"
finish
