#!/bin/bash
# cli_score: `cutune score` on two Kernel Tuner cache files with few repeats prints the table
# and writes the SVG; a cutune store scores too; --help explains the method; bad options are
# refused. The files are the project's own fixtures (tests/fixtures/make_fixtures.sh).
set -u
fx="${CUTUNE_SRC:-.}/tests/fixtures"
a="$fx/kt/toy_stencil_A.json.gz"
b="$fx/kt/toy_stencil_B.json.gz"
[ -f "$a" ] && [ -f "$b" ] || { echo "the fixtures $a and $b are missing"; exit 1; }
mkdir -p "$CUTUNE_TMP"
svg="$CUTUNE_TMP/cli_score.svg"
out="$CUTUNE_TMP/cli_score.out"
rm -f "$svg"
fail=0
"$CUTUNE_BIN" score --repeats 3 --budget-max 60 --svg "$svg" "$a" "$b" > "$out" 2>&1 || { echo "score failed"; cat "$out"; fail=1; }
for s in random ils ga anneal bo bandit; do
  grep -qE "^$s +-?[0-9]+\.[0-9]+" "$out" || { echo "no table row for $s"; fail=1; }
done
grep -q "mean score" "$out" || { echo "no header"; fail=1; }
grep -q "2 files, 3 repeats, budgets 10..60" "$out" || { echo "no summary line"; fail=1; }
[ -s "$svg" ] && grep -q "<svg" "$svg" && [ "$(grep -c "<polyline" "$svg")" -eq 6 ] || { echo "svg missing or incomplete"; fail=1; }
"$CUTUNE_BIN" score --repeats 2 --budget-max 8 --budget-min 2 --svg "$CUTUNE_TMP/cli_score_store.svg" "$fx/store/toy.jsonl" > "$out.store" 2>&1 \
  && grep -q "1 file, 2 repeats" "$out.store" || { echo "score on a cutune store failed"; cat "$out.store"; fail=1; }
"$CUTUNE_BIN" score --help | grep -q "Willemsen" || { echo "help does not explain the method"; fail=1; }
"$CUTUNE_BIN" score --repeats 0 "$a" > /dev/null 2>&1; [ $? -eq 2 ] || { echo "--repeats 0 accepted"; fail=1; }
"$CUTUNE_BIN" score --strategies ga,simplex "$a" 2>&1 | grep -q "unknown strategy 'simplex'" || { echo "bad strategy not named"; fail=1; }
[ $fail -eq 0 ] && cat "$out"
exit $fail
