#!/usr/bin/env bash
# tools/store-add-param through the fake libcuda.so.1 (tests/fake): a store measured before the
# template gained a parameter (UNROLL, whose 1 is the old code), carried over as UNROLL=1, answers
# a run of the new space: its UNROLL=1 configurations are not measured again, the UNROLL=2 ones
# are. The records' options hash (every -D is in it) and check hash (the reference is in the same
# template) are cutune's own for the new space (`cutune space --hashes`); UNROLL comes first in
# the new space's parameters, so the keys take the space's order. The carried records without
# the new hashes (the tool before it restamped them) answered nothing.
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
export CUTUNE_BIN="$BIN" # the tool's cutune
old="$TMPROOT/old" new="$TMPROOT/new"
mkdir -p "$old" "$new"
cp tests/spaces/fake_copy.lua tests/spaces/fake_copy.cu "$old/"
# the new template: UNROLL defaults to 1 and its 1 is the code of before
{
  printf '#ifndef UNROLL\n#define UNROLL 1\n#endif\n'
  sed 's|^  for (unsigned i|#pragma unroll UNROLL\n  for (unsigned i|' tests/spaces/fake_copy.cu
} >"$new/fake_copy.cu"
sed 's|    ct.param("BLOCK"|    ct.param("UNROLL", {1, 2}),\n    ct.param("BLOCK"|' tests/spaces/fake_copy.lua >"$new/fake_copy.lua"
grep -q 'ct.param("UNROLL", {1, 2})' "$new/fake_copy.lua" && ok || fail "the new space lacks UNROLL"

R="$TMPROOT/results"
S="$R/Fake_H200/fake_copy.jsonl"
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R" "$old/fake_copy.lua"
expect_output "12 measured" "the old space measured"
[ "$(wc -l <"$S")" -eq 12 ] && ok || fail "not 12 records from the old space"

# carried: every record keyed as the new space keys it
expect_status 0 -- tools/store-add-param "$S" UNROLL 1 "$new/fake_copy.lua" "$TMPROOT/carried.jsonl"
expect_output "12 records carried as UNROLL=1" "the tool's summary"
expect_output "12 check hashes restamped" "the check hashes"
"$BIN" space "$new/fake_copy.lua" --hashes >"$TMPROOT/hashes.txt"
python3 - "$TMPROOT/carried.jsonl" "$TMPROOT/hashes.txt" "$S" <<'PY' && ok || fail "the carried records' keys and hashes"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
old = [json.loads(l) for l in open(sys.argv[3])]
want = {}
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    want[f[0] if f[0] == "template" else (f[0], f[1])] = f[-1]
assert len(recs) == 12
for r, o in zip(recs, old):
    p, q = r["provenance"], o["provenance"]
    assert r["config"].startswith("UNROLL=1,BLOCK="), r["config"]
    assert list(r["params"]) == ["UNROLL", "BLOCK", "STRIDE"], r["params"]
    assert p["template_hash"] == want["template"] != q["template_hash"] == p["template_hash_measured"]
    assert p["options_hash"] == want[("config", r["config"])] != q["options_hash"] == p["options_hash_measured"]
    assert p["check_hash"] == want[("check", r["problem"])] != q["check_hash"] == p["check_hash_measured"]
    assert r["time_ms"] == o["time_ms"] and r["status"] == o["status"]
PY

# the new space, resumed from the carried store: UNROLL=1 answered, UNROLL=2 measured
R2="$TMPROOT/results-new"
mkdir -p "$R2/Fake_H200"
cp "$TMPROOT/carried.jsonl" "$R2/Fake_H200/fake_copy.jsonl"
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R2" "$new/fake_copy.lua"
expect_output "12 measured (0 failed), 12 answered from the store" "the carried store answers UNROLL=1"
[ "$(grep -c '"config":"UNROLL=1,' "$R2/Fake_H200/fake_copy.jsonl")" -eq 12 ] && ok ||
  fail "UNROLL=1 measured again"

# records carried with the template hash alone (as the tool did before) answer nothing
R3="$TMPROOT/results-stale"
mkdir -p "$R3/Fake_H200"
python3 - "$TMPROOT/carried.jsonl" >"$R3/Fake_H200/fake_copy.jsonl" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    p = r["provenance"]
    p["options_hash"], p["check_hash"] = p["options_hash_measured"], p["check_hash_measured"]
    print(json.dumps(r, separators=(",", ":")))
PY
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R3" "$new/fake_copy.lua"
expect_output "24 measured (0 failed), 0 answered from the store" "stale hashes answer nothing"

# errors: a value the space lacks, a parameter the records already have, a template for a space
expect_status 1 -- tools/store-add-param "$S" UNROLL 3 "$new/fake_copy.lua" "$TMPROOT/x.jsonl"
expect_output "12 records are of configurations $new/fake_copy.lua does not have with UNROLL=3" "a value it lacks"
expect_status 1 -- tools/store-add-param "$TMPROOT/carried.jsonl" UNROLL 1 "$new/fake_copy.lua" "$TMPROOT/x.jsonl"
expect_output "the record already has UNROLL" "carried twice"
expect_status 2 -- tools/store-add-param "$S" UNROLL 1 "$new/fake_copy.cu"
expect_output "give the space (SPACE.lua), not the template" "a template given"
finish
