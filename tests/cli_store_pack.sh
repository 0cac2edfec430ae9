#!/usr/bin/env bash
# cli_store_pack: a store's compressed part (tools/store-archive --pack: <store>.jsonl.gz beside
# <store>.jsonl, tuner/store/store.h). A whole run through the fake driver, then its records
# packed: nothing lost (the plain file and the packed part hold every line of the store before,
# once), `cutune best` says the same from the packed store, a second run answers every
# measurement from the packed part and measures nothing, a run of a new problem appends to the
# plain file only, the header of the folder reads both (and the packed part alone, without a
# plain file), and a second --pack packs only what was appended.
. "$(dirname "$0")/lib_cli.sh"
set -e
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
use_fake_cuda
d="$TMPROOT/space"
mkdir -p "$d"
cp tests/spaces/fake_run.lua tests/spaces/fake_run.cu tests/spaces/fake_run_inc.cuh "$d/"
R="$TMPROOT/results"
S="$R/Fake_H200/fake_run.jsonl"
run() { run_any "$BIN" run --jobs 1 --no-progress --results "$R" "$d/fake_run.lua" "$@"; }
run --problem 0
[ "$STATUS" -eq 0 ] || [ "$STATUS" -eq 3 ] && ok || fail "first run: exit $STATUS"
n0=$(grep -c . "$S")
grep -q '"cc":"9.0","sms":132' "$S" && ok || fail "the records lack the fake device's 132 SMs: $(head -c 600 "$S")"
[ "$n0" -ge 12 ] && ok || fail "first run wrote $n0 records"
sort "$S" > "$TMPROOT/before"
"$BIN" best "$S" > "$TMPROOT/best_before.txt" 2>&1

expect_status 0 -- tools/store-archive "$S" --pack
expect_output "$n0 records to its compressed part $S.gz"
[ -f "$S.gz" ] && [ "$(grep -c . "$S" || true)" -eq 0 ] && ok || fail "after --pack: $(ls -la "$R/Fake_H200")"
gzip -dc "$S.gz" | sort | cmp -s - "$TMPROOT/before" && ok || fail "the packed part differs from the store before"
"$BIN" best "$S" > "$TMPROOT/best_after.txt" 2>&1
cmp -s "$TMPROOT/best_before.txt" "$TMPROOT/best_after.txt" && ok || fail "cutune best differs after --pack: $(diff "$TMPROOT/best_before.txt" "$TMPROOT/best_after.txt" | head -5)"

# the same run again: every answer from the packed part, nothing measured, nothing appended
run --problem 0
[ "$STATUS" -eq 0 ] || [ "$STATUS" -eq 3 ] && ok || fail "second run: exit $STATUS"
expect_output "0 configurations measured"
[ "$(grep -c . "$S" || true)" -eq 0 ] && ok || fail "the second run appended $(grep -c . "$S") records"
# a new problem: measured, appended to the plain file; the packed part unchanged
sum=$(cksum < "$S.gz")
run --problem 1
[ "$STATUS" -eq 0 ] || [ "$STATUS" -eq 3 ] && ok || fail "third run: exit $STATUS"
n1=$(grep -c . "$S")
[ "$n1" -ge 12 ] && [ "$(cksum < "$S.gz")" = "$sum" ] && ok || fail "problem 1: $n1 records in the plain file, packed part changed: $(cksum < "$S.gz") vs $sum"
expect_status 0 -- "$BIN" best "$R"
expect_output "fake_run / n=65536"
expect_output "fake_run / n=4096"
# a second --pack: only the appended records move; all of them are in the packed part, once
expect_status 0 -- tools/store-archive "$S" --pack
expect_output "$n1 records to its compressed part"
[ "$(gzip -dc "$S.gz" | grep -c .)" -eq $((n0 + n1)) ] && ok || fail "packed part holds $(gzip -dc "$S.gz" | grep -c .) lines, wanted $((n0 + n1))"
# the packed part alone (no plain file): still the store
rm -f "$S" "$S.lock"
expect_status 0 -- "$BIN" best "$R"
expect_output "fake_run / n=4096"
run --problem all
expect_output "0 configurations measured"
finish
