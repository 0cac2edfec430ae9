#!/usr/bin/env bash
# cutune explain without a GPU: its help; a clear message and exit status 3 when ncu is missing
# or cannot read the counters (nothing recorded); with a stand-in ncu that prints the CSV
# recorded on an H200 (tests/fake/fake_ncu.sh) the side-by-side table, the seed-terms readings
# and the sidecar; cutune report then carries the counters into the HTML page.
. "$(dirname "$0")/lib_cli.sh"
set -e
S=$TMPROOT/store
mkdir -p "$S"
cp tests/fixtures/explain/transpose_h200.jsonl "$S/transpose.jsonl"
SEEDS=(--config TILE=0,BLOCK_ROWS=32 --config TILE=32,PAD=0,SWIZZLE=0,BLOCK_ROWS=8,VEC=1,UNROLL=0,LDG=0
       --config TILE=32,PAD=1,SWIZZLE=0,BLOCK_ROWS=8,VEC=1,UNROLL=0,LDG=0)
expect_status 0 -- "$BIN" explain --help
expect_output "exit status: 0 done"
expect_output "--sanitize"
expect_status 0 -- "$BIN" help explain
expect_status 2 -- "$BIN" explain lua/transpose_space.lua --frobnicate
expect_output "unknown option '--frobnicate'"

# no ncu: exit 3, says so, records nothing
expect_status 3 -- "$BIN" explain lua/transpose_space.lua --store "$S/transpose.jsonl" --ncu /nonexistent/ncu
expect_output "--ncu is not an executable"
[ ! -e "$S/transpose.explain.jsonl" ] && ok || fail "a sidecar was written without ncu"
# ncu without counter access (virtual machines, restricted drivers): exit 3, the reason named
FAKE_NCU=perm expect_status 3 -- "$BIN" explain lua/transpose_space.lua --store "$S/transpose.jsonl" --ncu tests/fake/fake_ncu.sh --top 1
expect_output "ERR_NVGPUCTRPERM"
expect_output "the rest are unaffected"
[ ! -e "$S/transpose.explain.jsonl" ] && ok || fail "a sidecar was written without counters"

# the story of the seed documents, from recorded counters
expect_status 0 -- "$BIN" explain lua/transpose_space.lua --store "$S/transpose.jsonl" --ncu tests/fake/fake_ncu.sh \
  --top 1 --no-param-values "${SEEDS[@]}"
expect_output "memory-bound at 83 % of DRAM peak"
expect_output "uncoalesced stores: 32.0 sectors per request"
expect_output "32-way bank conflicts on shared loads"
expect_output "differs from #1 in TILE=32 (#1: 64), PAD=1 (#1: 0)"
expect_output "time, ncu gpu__time_duration, us        127.8      962.5      343.3      198.3"
n=$(grep -c '"kind":"ncu"' "$S/transpose.explain.jsonl" || true)
[ "$n" -eq 4 ] && ok || fail "sidecar has $n ncu lines (wanted 4)"
# a partial --config that matches nothing is refused
expect_status 1 -- "$BIN" explain lua/transpose_space.lua --store "$S/transpose.jsonl" --ncu tests/fake/fake_ncu.sh --top 0 --config TILE=7
expect_output "no valid configuration"

# --sanitize through a stand-in compute-sanitizer: the verdicts, exit 4 when one is flagged,
# racecheck only where the kernel uses shared memory (the naive kernel has none)
FAKE_SAN_FLAG="TILE=32,PAD=0," expect_status 4 -- "$BIN" explain lua/transpose_space.lua --store "$S/transpose.jsonl" \
  --no-profile --sanitize --sanitizer tests/fake/fake_sanitizer.sh --top 1 --no-param-values "${SEEDS[@]}"
expect_output "racecheck flagged 1 hazards: Warning: Race reported between Write access"
expect_output "racecheck not run (no shared memory)"
expect_output "sanitizers on M=3002,N=1000"
f=$(grep '"kind":"sanitize"' "$S/transpose.explain.jsonl" | grep -c '"verdict":"flagged"' || true)
c=$(grep '"kind":"sanitize"' "$S/transpose.explain.jsonl" | grep -c '"verdict":"clean"' || true)
[ "$f" -eq 3 ] && [ "$c" -eq 8 ] && ok || fail "sidecar has $f flagged and $c clean verdicts (wanted 3 and 8)"
expect_status 0 -- "$BIN" explain lua/transpose_space.lua --store "$S/transpose.jsonl" --no-profile --sanitize \
  --sanitizer tests/fake/fake_sanitizer.sh --top 1 --no-param-values
expect_output "memcheck  clean"
# an ncu that lacks one of the metrics refuses the whole list: explain asks again without it
FAKE_NCU=missing expect_status 0 -- "$BIN" explain lua/transpose_space.lua --store "$S/transpose.jsonl" \
  --ncu tests/fake/fake_ncu.sh --top 1 --no-param-values
expect_output "this ncu has no metric regex:l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm"
expect_output "DRAM throughput"
printf '%s\n' "$OUTPUT" | grep -q "not profiled" && fail "no counters after the retry" || ok
# a packed store (results/README.md) whose folder holds only <space>.jsonl.gz is found by --results
P=$TMPROOT/packed
mkdir -p "$P/NVIDIA_H200"
gzip -c tests/fixtures/explain/transpose_h200.jsonl > "$P/NVIDIA_H200/transpose.jsonl.gz"
expect_status 0 -- "$BIN" explain lua/transpose_space.lua --results "$P" --no-profile --sanitize \
  --sanitizer tests/fake/fake_sanitizer.sh --top 1 --no-param-values
expect_output "memcheck  clean"
# the hidden worker command refuses what it cannot find, before any GPU is needed
expect_status 1 -- "$BIN" __profile-one lua/transpose_space.lua TILE=7 0
expect_output "no valid configuration 'TILE=7'"

# the report reads the sidecar
expect_status 0 -- "$BIN" report --store "$S/transpose.jsonl" -o "$S/report.html"
for id in best-0 params-0 front-0 curve-0-evals curve-0-seconds resources-0 explain-0 provenance; do
  grep -q "id=\"$id\"" "$S/report.html" && ok || fail "report lacks #$id"
done
grep -q "32-way bank conflicts on shared loads" "$S/report.html" && ok || fail "report lacks the explain readings"
grep -q '<td class="l flagged"' "$S/report.html" && ok || fail "report does not show the flagged verdict"
# the counters' "#N" is the best table's rank N of that configuration (issue 23, item 14), and
# the best table has no column without a figure
python3 - "$S/report.html" <<'PY' && ok || fail "report: the counters' numbering or the best table's columns"
import re, sys
h = open(sys.argv[1]).read()
best = re.search(r'<section id="best-0">.*?</table>', h, re.S).group(0)
heads = re.findall(r'<th[^>]*>(.*?)</th>', best)
rank = {}
for row in re.findall(r'<tr><td>(\d+)</td>(.*?)</tr>', best, re.S):
    cells = re.findall(r'<td[^>]*>(.*?)</td>', row[1])
    rank[row[0]] = ",".join(f"{heads[1 + i]}={cells[i]}" for i in range(len(heads) - 1) if heads[1 + i] in ("TILE", "PAD", "SWIZZLE", "BLOCK_ROWS", "VEC", "UNROLL", "LDG", "ORDER", "TPB"))
reads = re.findall(r'<p class="read"><b>#(\d+)</b> <code>(.*?)</code>', h)
assert reads, "no numbered readings"
shown = 0
for n, config in reads: # a rank past the table's rows is still the configuration's rank
    if n in rank:
        assert rank[n] == config, f"#{n} reads {config}, the best table's #{n} is {rank[n]}"
        shown += 1
assert shown, "no reading names a configuration of the best table"
cols = list(zip(*[re.findall(r'<td[^>]*>(.*?)</td>', r) for r in re.findall(r'<tr><td>\d+</td>.*?</tr>', best, re.S)]))
assert all(any(c != "&ndash;" for c in col) for col in cols), "a column of the best table is empty"
PY
grep -q "<script src\|<link \|http://\|https://" <(sed 's#xmlns="http://www.w3.org/2000/svg"##g' "$S/report.html") && fail "report refers to something outside itself" || ok
expect_status 2 -- "$BIN" report
expect_status 1 -- "$BIN" report --store "$S/none.jsonl"
finish
