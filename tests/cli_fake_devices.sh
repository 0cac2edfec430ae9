#!/usr/bin/env bash
# Several GPUs of one host without a GPU: the fake driver (tests/fake) presents two H200s and an
# A100. `run --devices all` measures every configuration once per model: the H200 store holds
# the same (config, problem) set as a one-device run, nothing twice, from both H200s; the A100
# records go to a store of their own, compiled for sm_80. A second run measures nothing. A
# driver without devices: the plain run compiles only.
. "$(dirname "$0")/lib_cli.sh"
FAKE=$(dirname "$BIN")/fakecuda
[ -e "$FAKE/libcuda.so.1" ] || { echo "skipped: the fake libcuda.so.1 was not built"; exit 77; }
export LD_LIBRARY_PATH="$FAKE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
set -e
SPACE=tests/spaces/fake_copy.lua
CUTUNE_FAKE_DEVICES="NVIDIA H200" expect_status 0 -- "$BIN" run --no-progress --jobs 2 --results "$TMPROOT/one" $SPACE
export CUTUNE_FAKE_DEVICES="NVIDIA H200,NVIDIA H200,NVIDIA A100-SXM4-80GB"
expect_status 0 -- "$BIN" run --no-progress --jobs 2 --devices all --results "$TMPROOT/all" $SPACE
echo "$OUTPUT" | grep -v '^ *[0-9]' | tail -12
expect_output "NVIDIA H200 x2 (sm_90"
expect_output "NVIDIA A100-SXM4-80GB (sm_80"
python3 - "$TMPROOT" <<'PY' && ok || fail "store check failed"
import json, sys, os
root = sys.argv[1]
def load(path):
    seen, uuids, archs = {}, set(), set()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            r = json.loads(line)
            k = (r["config"], r["problem"])
            if k in seen:
                sys.exit(f"{path}: duplicate record for {k} at lines {seen[k]} and {n}")
            seen[k] = n
            uuids.add(r["provenance"]["uuid"]); archs.add(r["provenance"]["arch"])
    return set(seen), uuids, archs
one, _, _ = load(f"{root}/one/NVIDIA_H200/fake_copy.jsonl")
h200, hu, ha = load(f"{root}/all/NVIDIA_H200/fake_copy.jsonl")
a100, au, aa = load(f"{root}/all/NVIDIA_A100-SXM4-80GB/fake_copy.jsonl")
assert len(one) == 12, f"one-device run: {len(one)} records"
assert h200 == one, f"H200 store differs from the one-device run: {sorted(h200 ^ one)}"
assert a100 == one, f"A100 store differs from the one-device run: {sorted(a100 ^ one)}"
assert len(hu) == 2, f"the H200 records come from {len(hu)} devices, wanted 2: {hu}"
assert ha == {"sm_90"} and aa == {"sm_80"}, f"archs {ha} {aa}"
assert sorted(os.listdir(f"{root}/all")) == ["NVIDIA_A100-SXM4-80GB", "NVIDIA_H200"], os.listdir(f"{root}/all")
print(f"{len(h200)} H200 records from {len(hu)} devices, {len(a100)} A100 records; no duplicates")
PY
expect_status 0 -- "$BIN" run --no-progress --jobs 2 --devices 0,2 --results "$TMPROOT/all" $SPACE
expect_output "0 measured (0 failed), 12 answered from the store"
[ "$(cat "$TMPROOT"/all/*/fake_copy.jsonl | wc -l)" -eq 24 ] && ok || fail "the second run added records"
# a device whose kernel faults takes only its own configuration with it: the BLOCK=512 variants
# kill their GPU worker (illegal address), are recorded as runtime_fault (exit 3: some failed),
# the rest are measured
FAKE_CUDA_FAULT_BLOCK=512 expect_status 3 -- "$BIN" run --no-progress --jobs 2 --devices all --results "$TMPROOT/fault" $SPACE
python3 - "$TMPROOT/fault" <<'PY' && ok || fail "fault run check failed"
import json, sys, glob
for path in sorted(glob.glob(sys.argv[1] + "/*/fake_copy.jsonl")):
    recs = [json.loads(l) for l in open(path)]
    st = {(r["config"], r["status"]) for r in recs}
    assert len(recs) == 12 and len({r["config"] for r in recs}) == 12, f"{path}: {len(recs)} records"
    bad = sorted(c for c, s in st if s != "ok")
    assert all(s == ("runtime_fault" if c.startswith("BLOCK=512,") else "ok") for c, s in st), f"{path}: {sorted(st)}"
    print(f"{path}: 12 records, {len(bad)} runtime_fault: {bad}")
PY
expect_status 2 -- "$BIN" run --devices 0,7 $SPACE
expect_output "device 7 does not exist (this machine has 3)"
expect_status 2 -- "$BIN" run --devices 1,x $SPACE
expect_output "--devices needs 'all' or ordinals"
# a driver without devices: the plain run (its devices not counted first) finds none when its
# GPU worker starts, and compiles only, as a run that counted them would; nothing is stored
CUTUNE_FAKE_DEVICES=none expect_status 0 -- "$BIN" run --no-progress --jobs 2 --results "$TMPROOT/none" $SPACE
expect_output "no CUDA device found (no CUDA device 0 (this machine has 0))"
expect_output "timing needs a GPU"
[ ! -e "$TMPROOT/none" ] || [ -z "$(ls -A "$TMPROOT/none")" ] && ok || fail "the run without a device stored something"
# another --device is counted first, as before: one the machine lacks is a bad command line
CUTUNE_FAKE_DEVICES="NVIDIA H200" expect_status 2 -- "$BIN" run --device 1 $SPACE
expect_output "--device 1: this machine has 1 CUDA device"
finish
