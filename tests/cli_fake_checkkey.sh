#!/usr/bin/env bash
# The check is part of what a stored record answers (provenance.check_hash, docs/RECORDS.md),
# end to end through the fake libcuda.so.1 (tests/fake): a re-run under a loosened check
# measures again what was measured under the tight one and appends (the store keeps both); a
# re-run under the same check, or back under an earlier one, measures nothing; timing only
# (check = false) after a checked run measures again; records without a check hash (older
# stores) answer any check. The run's tables, `cutune header`, `best --space` and `report SPACE.lua`
# leave the records of another check out and say how many; `report --store` says a problem's
# records mix two checks; `report SPACE.lua` leaves out the records of another version of the
# template too (--all-versions ranks them).
. "$(dirname "$0")/lib_cli.sh"
set -e
use_fake_cuda
d=tests/spaces/realk # read only: nothing is written beside the spaces
R="$TMPROOT/results"
S="$R/Fake_H200/fake_mismatches.jsonl"
rec() { grep "\"config\":\"B=$1\"" "$S" | grep -c "\"status\":\"$2\"" || true; } # rec B STATUS: how many
# run MISMATCHES WANT_MEASURED WANT_ANSWERED: fake_mismatches.lua (configuration B leaves B of
# 4096 elements wrong) with the output's mismatches = MISMATCHES into $R
run() {
  FAKE_MM_OUTPUT=$1 run_any "$BIN" run --jobs 2 --no-progress --results "$R" "$d/fake_mismatches.lua"
  [ "$STATUS" -eq 3 ] && ok || fail "mismatches = $1 exited $STATUS (wanted 3: B=256 is wrong under both)"
  expect_output "problem n=4096: $2 measured" "mismatches = $1: $2 measured"
  expect_output "$3 answered from the store" "mismatches = $1: $3 answered"
}

# tight: B=64 passes, B=128 and B=256 fail
run 64 3 0
printf '%s' "$OUTPUT" | grep -q "under another check" && fail "the first run's table mentions another check" || ok
[ "$(wc -l <"$S")" -eq 3 ] && ok || fail "not 3 records after the first run"
[ "$(grep -c '"check_hash":"[0-9a-f]\{32\}"' "$S")" -eq 3 ] && ok || fail "the records carry no check_hash"
# the same check again: every configuration answered from the store, nothing appended
run 64 0 3
[ "$(wc -l <"$S")" -eq 3 ] && ok || fail "a re-run under the same check appended records"
# loosened: every configuration measured again, B=128 now ok; the tight records kept
run 128 3 0
expect_output "3 records measured under another check of their problem are left out" "the loosened run's table"
[ "$(wc -l <"$S")" -eq 6 ] && ok || fail "not 6 records after the loosened run: $(wc -l <"$S")"
[ "$(rec 128 wrong_result)" -eq 1 ] && [ "$(rec 128 ok)" -eq 1 ] && ok ||
  fail "B=128: not one wrong_result (tight) and one ok (loose) record"
expect_output "problem n=4096: 2 of 3 configurations passed" "the loosened run's table"
[ "$(grep -o '"check_hash":"[0-9a-f]*"' "$S" | sort -u | wc -l)" -eq 2 ] && ok || fail "not two check hashes in the store"
# back to the tight check: its older records answer, behind the loose ones; the table is theirs
run 64 0 3
expect_output "problem n=4096: 1 of 3 configurations passed" "the tight run's table from the store"
expect_output "3 records measured under another check of their problem are left out" "the tight run's table"
[ "$(wc -l <"$S")" -eq 6 ] && ok || fail "going back to the tight check appended records"

# `cutune best` and `header` read a store holding both checks' records, and ship by the check
# the space has now: under the tight one B=128 (ok only under the loose check, whose records are
# the newer) is not shipped; under the loose one it is
expect_status 0 -- "$BIN" best "$R"
expect_output "B=" "best over a store of two checks"
FAKE_MM_OUTPUT=128 expect_status 0 -- "$BIN" header "$d/fake_mismatches.lua" "$R" -o "$TMPROOT/mm.h"
grep -q "B=128" "$TMPROOT/mm.h" && ok || fail "the header under the loose check lacks B=128"
expect_output "3 records checked under another check of their problem skipped" "header: the tight records"
FAKE_MM_OUTPUT=64 expect_status 0 -- "$BIN" header "$d/fake_mismatches.lua" "$R" -o "$TMPROOT/mm64.h"
grep -q "B=64" "$TMPROOT/mm64.h" && ok || fail "the header under the tight check lacks B=64"
grep -q "B=128" "$TMPROOT/mm64.h" && fail "the header under the tight check ships B=128 (ok under the loose check only)" || ok
expect_output "3 records checked under another check of their problem skipped" "header: the loose records"
FAKE_MM_OUTPUT=64 expect_status 0 -- "$BIN" best --space "$d/fake_mismatches.lua" "$R"
if printf '%s' "$OUTPUT" | grep -q "B=128"; then fail "best --space under the tight check shows B=128"; else ok; fi

# `cutune report` with the space ranks the records of the check it has now, as header ships them:
# under the tight check B=128 is a wrong result (its ok record is the loose check's, the newer);
# --all-checks, or a store without a space, ranks the newest record of each configuration
measured() { grep -o '<p>3 configurations measured:[^<]*' "$1" || true; } # the best table's status counts
FAKE_MM_OUTPUT=64 expect_status 0 -- "$BIN" report "$d/fake_mismatches.lua" --results "$R" -o "$TMPROOT/r64.html"
expect_output "3 records measured under another check of their problem are left out" "report: the loose records"
[ "$(measured "$TMPROOT/r64.html")" = "<p>3 configurations measured: ok 1; wrong_result 2;" ] && ok ||
  fail "report under the tight check: $(measured "$TMPROOT/r64.html") (wanted ok 1; wrong_result 2)"
grep -q '<p id="checks" class="note">3 records measured under another check' "$TMPROOT/r64.html" && ok ||
  fail "report's page lacks the note on the loose records"
grep -q 'id="checks-0"' "$TMPROOT/r64.html" && fail "report under the tight check says its ranked records mix checks" || ok
FAKE_MM_OUTPUT=128 expect_status 0 -- "$BIN" report "$d/fake_mismatches.lua" --results "$R" -o "$TMPROOT/r128.html"
[ "$(measured "$TMPROOT/r128.html")" = "<p>3 configurations measured: ok 2; wrong_result 1;" ] && ok ||
  fail "report under the loose check: $(measured "$TMPROOT/r128.html") (wanted ok 2; wrong_result 1)"
FAKE_MM_OUTPUT=64 expect_status 0 -- "$BIN" report "$d/fake_mismatches.lua" --all-checks --results "$R" \
  -o "$TMPROOT/rall.html"
expect_output "records of every check are ranked (--all-checks): 3 of them" "report --all-checks"
[ "$(measured "$TMPROOT/rall.html")" = "<p>3 configurations measured: ok 2; wrong_result 1;" ] && ok ||
  fail "report --all-checks: $(measured "$TMPROOT/rall.html") (wanted the newest records: ok 2; wrong_result 1)"
expect_status 2 -- "$BIN" report --store "$S" --all-checks -o "$TMPROOT/rstore.html"
expect_output "--all-checks needs a space (with --store alone every record is ranked already)" "report --store --all-checks"
expect_status 0 -- "$BIN" report --store "$S" -o "$TMPROOT/rstore.html"
expect_output "1 problem has records of several checks ranked together" "report --store"
grep -q '<p id="checks-0" class="note">Records of 2 checks ([0-9a-f]\{8\}: 3 records, [0-9a-f]\{8\}: 3 records)' \
  "$TMPROOT/rstore.html" && ok || fail "report --store: the page lacks the two checks' counts"

# timing only after a checked run: measured again, the records unchecked; checked again: answered
R2="$TMPROOT/results-reduce"
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R2" "$d/fake_reduce.lua"
FAKE_UNCHECKED=1 expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R2" "$d/fake_reduce.lua"
expect_output "problem n=65536: 3 measured" "timing only after a checked run"
[ "$(grep -c '"unchecked":1' "$R2/Fake_H200/fake_reduce.jsonl")" -eq 3 ] && ok || fail "not 3 unchecked records"
expect_status 0 -- "$BIN" run --jobs 2 --no-progress --results "$R2" "$d/fake_reduce.lua"
expect_output "0 measured (0 failed), 3 answered from the store" "checked again after timing only"

# another version of the template (a comment added: another template hash) measures again, and
# `report SPACE.lua` ranks only the records of the template as it is now, as header ships them,
# counting the others; --all-versions ranks them too
V="$TMPROOT/versions"
mkdir -p "$V" && cp "$d"/* "$V/"
FAKE_MM_OUTPUT=64 expect_status 3 -- "$BIN" run --jobs 2 --no-progress --results "$V/R" "$V/fake_mismatches.lua"
echo "// another version" >>"$V/fake_cxx.cu"
FAKE_MM_OUTPUT=64 expect_status 3 -- "$BIN" run --jobs 2 --no-progress --results "$V/R" "$V/fake_mismatches.lua"
expect_output "problem n=4096: 3 measured" "another version of the template measures again"
FAKE_MM_OUTPUT=64 expect_status 0 -- "$BIN" report "$V/fake_mismatches.lua" --results "$V/R" -o "$V/now.html"
expect_output "3 records of another version of the template (another template hash" "report: the older version's records"
expect_output "wrote $V/now.html (3 records" "report: the template now's records"
FAKE_MM_OUTPUT=64 expect_status 0 -- "$BIN" report "$V/fake_mismatches.lua" --all-versions --results "$V/R" -o "$V/all.html"
expect_output "records of every version of the template are ranked (--all-versions): 3 of them" "report --all-versions"
expect_output "wrote $V/all.html (6 records" "report --all-versions: every record"

# an older store (records without check_hash) answers whatever the check, as it always did
R3="$TMPROOT/results-old"
mkdir -p "$R3/Fake_H200"
sed 's/,"check_hash":"[0-9a-f]*"//' "$S" | head -3 >"$R3/Fake_H200/fake_mismatches.jsonl"
grep -q check_hash "$R3/Fake_H200/fake_mismatches.jsonl" && fail "the old store still has check hashes" || ok
FAKE_MM_OUTPUT=128 run_any "$BIN" run --jobs 2 --no-progress --results "$R3" "$d/fake_mismatches.lua"
expect_output "0 measured (0 failed), 3 answered from the store" "records without a check hash answer"
[ "$(wc -l <"$R3/Fake_H200/fake_mismatches.jsonl")" -eq 3 ] && ok || fail "the old store grew"
finish
