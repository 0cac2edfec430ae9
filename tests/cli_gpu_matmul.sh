#!/usr/bin/env bash
# On a GPU: ragged sizes pass verification. A seeded random sample of matmul variants on the two
# problems that divide no tile (M=1100,N=1284,K=1060: edge tiles; M=1000,N=1003,K=999: N and K
# % 4 = 3, the scalar load paths) and of vecadd variants on n = 2^24 + 3 (the scalar tail) is
# checked against the reference kernels: every record must be "ok" (no wrong_result, no fault).
. "$(dirname "$0")/lib_cli.sh"
gpu_or_skip
set -e
R="$TMPROOT/results"
for p in 2 3; do
  expect_status 0 -- "$BIN" run --no-progress -q --results "$R" --strategy random --budget 12 --seed 5 --problem $p lua/matmul_space.lua
done
expect_status 0 -- "$BIN" run --no-progress -q --results "$R" --strategy random --budget 24 --seed 5 --problem 3 lua/vecadd_space.lua
python3 - "$R" <<'PY' && ok || fail "a ragged variant did not pass"
import json, os, sys
n = bad = 0
for d, _, fs in os.walk(sys.argv[1]):
    for f in fs:
        for ln in open(os.path.join(d, f)):
            r = json.loads(ln); n += 1
            if r["status"] != "ok":
                bad += 1; print(r["problem"], r["config"], r["status"], r.get("message", "")[:300])
print(f"{n} records, {bad} not ok")
sys.exit(1 if bad or n != 48 else 0)
PY
finish
