#!/usr/bin/env bash
# cli_output_errors: output that does not arrive is an error (issue 23, items 2 and 5). Every
# command that prints to standard output exits non-zero with a message when it goes to a full
# device (/dev/full) or a closed descriptor, never 0 with its text cut short; -o onto a symbolic
# link writes the file the link names (the link stays), -o onto a FIFO writes into the FIFO,
# -o onto a folder is refused. `cutune score` writes no plot unasked, `cutune report` writes
# nothing inside results/ by default.
. "$(dirname "$0")/lib_cli.sh"
set -e
F=tests/ship
SHIP=("$F/shipfix.lua" "$F/results" "$F/kt_a4000.json")
STORE="$F/results/NVIDIA_H200/shipfix.jsonl"
cmds=(
  "version"
  "help"
  "help run"
  "run --help"
  "devices --count"
  "best $STORE"
  "header ${SHIP[*]}"
  "run --replay $STORE --budget 5"
  "score --strategies random --repeats 1 --budget-min 1 --budget-max 5 tests/data/score_costs.json"
  "report --store $STORE -o $TMPROOT/r.html"
  "run --compile-only --jobs 1 --sample 1 tests/spaces/good.lua"
  "space tests/spaces/good.lua --list"
)
for c in "${cmds[@]}"; do
  # shellcheck disable=SC2086 # each entry is a command line
  set +e; "$BIN" $c > /dev/full 2> "$TMPROOT/err"; st=$?; set -e
  if [ "$st" -ne 0 ] && grep -q "writing standard output failed\|cannot write" "$TMPROOT/err"; then ok
  else fail "cutune $c > /dev/full: exit $st"; cat "$TMPROOT/err" >&2; fi
  set +e; "$BIN" $c >&- 2> "$TMPROOT/err"; st=$?; set -e
  if [ "$st" -ne 0 ] && grep -q "writing standard output failed\|cannot write" "$TMPROOT/err"; then ok
  else fail "cutune $c >&-: exit $st"; cat "$TMPROOT/err" >&2; fi
done
# and still 0 when the output arrives
expect_status 0 -- "$BIN" best "$STORE"

# -o onto a symbolic link: the target is written, the link kept
mkdir -p "$TMPROOT/real"
echo old > "$TMPROOT/real/h.h"
chmod 600 "$TMPROOT/real/h.h"
ln -s real/h.h "$TMPROOT/link.h"
expect_status 0 -- "$BIN" header "${SHIP[@]}" -o "$TMPROOT/link.h"
[ -L "$TMPROOT/link.h" ] && ok || fail "-o replaced the symbolic link"
expect_status 0 -- grep -q "cutune_shipfix_select" "$TMPROOT/real/h.h"
[ "$(stat -c %a "$TMPROOT/real/h.h")" = 600 ] && ok || fail "the target's mode changed to $(stat -c %a "$TMPROOT/real/h.h")"
# a link to a file not there yet creates it
ln -s real/new.h "$TMPROOT/dangling.h"
expect_status 0 -- "$BIN" header "${SHIP[@]}" -o "$TMPROOT/dangling.h"
[ -L "$TMPROOT/dangling.h" ] && [ -f "$TMPROOT/real/new.h" ] && ok || fail "-o onto a dangling link"
# -o onto a FIFO: the header goes through it
mkfifo "$TMPROOT/fifo"
cat "$TMPROOT/fifo" > "$TMPROOT/from_fifo.h" &
reader=$!
expect_status 0 -- "$BIN" header "${SHIP[@]}" -o "$TMPROOT/fifo"
wait $reader
[ -p "$TMPROOT/fifo" ] && ok || fail "-o replaced the FIFO"
expect_status 0 -- grep -q "cutune_shipfix_select" "$TMPROOT/from_fifo.h"
# report -o onto a link too; a folder is refused
ln -s real/page.html "$TMPROOT/page.html"
expect_status 0 -- "$BIN" report --store "$STORE" -o "$TMPROOT/page.html"
[ -L "$TMPROOT/page.html" ] && [ -s "$TMPROOT/real/page.html" ] && ok || fail "report -o onto a link"
expect_status 1 -- "$BIN" header "${SHIP[@]}" -o "$TMPROOT/real"
expect_output "is a folder"

# nothing written unasked: score without --svg, report without -o (into the current folder,
# named after the store, not beside it in results/)
W="$TMPROOT/cwd"
mkdir -p "$W/results/NVIDIA_H200"
cp "$STORE" "$W/results/NVIDIA_H200/"
(cd "$W" && "$BIN" score --strategies random --repeats 1 --budget-min 1 --budget-max 5 "$SRC/tests/data/score_costs.json" > /dev/null)
[ ! -e "$W/score.svg" ] && ok || fail "score wrote score.svg unasked"
(cd "$W" && "$BIN" report --store results/NVIDIA_H200/shipfix.jsonl > "$TMPROOT/report.out")
[ -f "$W/shipfix-NVIDIA_H200.html" ] && ok || { fail "report's default page is not ./shipfix-NVIDIA_H200.html"; cat "$TMPROOT/report.out" >&2; }
if find "$W/results" -name '*.html' | grep -q .; then fail "report wrote inside results/"; else ok; fi
finish
