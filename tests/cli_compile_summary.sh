#!/usr/bin/env bash
# cli_compile_summary: `cutune run` without a GPU (issue 23, item 13) prints a summary by default
# — counts, resource ranges, per occupancy limiter how many it caps and the configurations it
# caps least — not a row per configuration; -v prints the whole table and --csv FILE writes it;
# --budget N is read as a sample of N and --time S stops handing out configurations after S
# seconds, each said in the output (a large space's default sample: test_tune_limits).
. "$(dirname "$0")/lib_cli.sh"
set -e
S=tests/spaces/good.lua # 208 configurations; a sample of 30 keeps the test short
expect_status 0 -- "$BIN" run --compile-only --sample 30 --jobs 2 --no-progress "$S"
expect_output "30 configurations: 30 compiled"
expect_output "resources of the 30 that compiled:"
expect_output "theoretical occupancy by limiter"
expect_output "the highest theoretical occupancy of each limiter (at most 3 each):"
expect_output "the whole table: -v, or --csv FILE"
# where the compile time went, over the 30 compiled here (test_report checks the figures)
expect_output "compile time of the 30 compiled here: "
expect_output "  heaviest: "
rows=$(printf '%s\n' "$OUTPUT" | grep -cE '^  [0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[01] ' || true)
if [ "$rows" -ge 1 ] && [ "$rows" -le 9 ]; then ok; else fail "the summary has $rows configuration rows (wanted 1..9: 3 per limiter)"; fi

# -v: every configuration a row; --csv: every configuration a line, and the summary stays
expect_status 0 -- "$BIN" run --compile-only --sample 30 --jobs 2 --no-progress -v "$S"
rows=$(printf '%s\n' "$OUTPUT" | grep -cE '^  [0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[01] ' || true)
[ "$rows" -eq 30 ] && ok || fail "-v printed $rows rows (wanted 30)"
expect_status 0 -- "$BIN" run --compile-only --sample 30 --jobs 2 --no-progress --csv "$TMPROOT/t.csv" "$S"
expect_output "the whole table, as CSV: $TMPROOT/t.csv"
expect_output "theoretical occupancy by limiter"
[ "$(wc -l < "$TMPROOT/t.csv")" -eq 31 ] && ok || fail "the CSV has $(wc -l < "$TMPROOT/t.csv") lines (wanted a header and 30)"
expect_status 0 -- grep -q '^space,config,problem,TILE,ROWS' "$TMPROOT/t.csv"
expect_status 0 -- grep -q ',regs,' "$TMPROOT/t.csv"
# -q: the summary alone
expect_status 0 -- "$BIN" run --compile-only --sample 30 --jobs 2 -q "$S"
if printf '%s' "$OUTPUT" | grep -q "valid configurations of"; then fail "-q printed the header line"; else ok; fi
expect_output "30 configurations: 30 compiled"

# --budget without a GPU: a sample of that size, said so
expect_status 0 -- "$BIN" run --compile-only --budget 30 --jobs 2 --no-progress "$S"
expect_output "--budget 30 without a GPU: a sample of 30 configurations of 208"
expect_output "30 configurations for sm_90"
# --time without a GPU: stops handing out configurations (big.lua: far more than a second's worth)
expect_status 0 -- "$BIN" run --compile-only --time 1 --jobs 2 --no-progress tests/spaces/big.lua
expect_output "--time 1 without a GPU: compiling for at most 1 s"
expect_output "were not handed out"
finish
