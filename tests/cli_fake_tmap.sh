#!/usr/bin/env bash
# ct.tensormap through the fake libcuda.so.1 (tests/spaces/fake_tmap.lua): the GPU worker encodes
# the map over the buffer it names with the declared dims (a function of p and n), packed strides
# and box (a size expression reading a parameter), and the 128 bytes the kernel receives describe
# it: the fake's tmap_copy reads its input through them, so the right map gives the right copy
# and a map with its dims swapped (V = 1) gives wrong results. A problem whose rows no tensor map
# can stride (13 floats: 52 bytes, not a multiple of 16): optional = true passes zeros (the
# kernel's fallback, records ok); optional = false makes those configurations invalid with the
# driver's refusal and the map's shape in the message.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
cd "$SRC/tests/spaces"
R="$TMPROOT/results"
run_any "$BIN" run --jobs 1 --no-progress --results "$R" fake_tmap.lua
[ "$STATUS" = 3 ] && ok || fail "exit $STATUS (wanted 3: the lying maps fail)"
python3 - "$R/Fake_H200/fake_tmap.jsonl" <<'PY' && ok || fail "the optional map's records"
import json, sys
recs = {(json.loads(l)["problem"], json.loads(l)["config"]): json.loads(l) for l in open(sys.argv[1]) if l.strip()}
assert len(recs) == 8, sorted(recs)
for (prob, cfg), r in recs.items():
    want = "ok" if cfg.endswith("V=0") else "wrong_result"
    assert r["status"] == want, (prob, cfg, r["status"], r["message"])
PY
sed 's/optional = true/optional = false/' fake_tmap.lua > "$TMPROOT/fake_tmap_strict.lua"
cp fake_tmap.cu "$TMPROOT/"
run_any "$BIN" run --jobs 1 --no-progress --results "$TMPROOT/r2" "$TMPROOT/fake_tmap_strict.lua"
[ "$STATUS" = 3 ] && ok || fail "strict: exit $STATUS"
python3 - "$TMPROOT/r2/Fake_H200/fake_tmap.jsonl" <<'PY' && ok || fail "the strict map's records"
import json, sys
recs = {(json.loads(l)["problem"], json.loads(l)["config"]): json.loads(l) for l in open(sys.argv[1]) if l.strip()}
for box in (4, 8):
    r = recs[("M=16,N=13", "BOX=%d,V=0" % box)]
    assert r["status"] == "invalid", r
    m = r["message"]
    assert "tensor map 'map' of 'in' (dims {13,16}, strides {52} bytes, box {%d,2}, swizzle 0)" % box in m, m
    assert "swizzle 0): CUDA_ERROR" in m, m  # the driver's refusal, named
    assert recs[("M=64,N=32", "BOX=%d,V=0" % box)]["status"] == "ok"
PY
# declarations the load refuses, each naming its file:line
bad() { # file-body expected-message
  printf '%s\n' "local ct = require 'cutune'" "return ct.space { template = 'fake_tmap.cu', kernel = 'tmap_copy'," \
    "params = { ct.param('BOX', {4, 8}) }, problems = { {M = 64, N = 32} }, block = {64}, grid = {32}," \
    "args = { ct.output('float', 'M*N', {name = 'out'}), ct.input('float', 'M*N', {name = 'in'})," "$1" "} }" \
    > "$TMPROOT/bad_tmap.lua"
  expect_status 1 -- "$BIN" space "$TMPROOT/bad_tmap.lua"
  expect_output "bad_tmap.lua:5: $2" "bad tensor map: $2"
}
bad "ct.tensormap { buffer = 'inn', dims = {'N', 'M'}, box = {'BOX', 2} }," \
  "args[3] (ct.tensormap): buffer \"inn\" is not a buffer argument listed before it"
bad "ct.tensormap { buffer = 'in', dims = {'N', 'M'}, box = {'BOX'} }," "args[3] (ct.tensormap): box has 1 entries, dims 2"
bad "ct.tensormap { buffer = 'in', dims = {'N', 'M'}, box = {64, 2}, swizzle = 128 }," \
  "ct.tensormap of 'in' for BOX=4 on problem M=64,N=32: the box's inner dimension is wider than the swizzle span"
bad "ct.tensormap { buffer = 'in', dims = {'N', 'M'}, box = {'BOX', 2}, dtype = 'half' }," \
  "args[3] (ct.tensormap): dtype \"half\" is not the type of buffer 'in' (float)"
bad "ct.tensormap { buffer = 'in', dims = {'N', 'M'}, box = {'BOX', 2}, swizle = 32 }," "unknown field 'swizle' in args[3] (ct.tensormap)"
finish
