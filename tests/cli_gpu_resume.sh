#!/usr/bin/env bash
# On a GPU: a run killed with SIGKILL midway and started again completes with no record lost or
# duplicated.
. "$(dirname "$0")/lib_cli.sh"
gpu_or_skip
set -e
R="$TMPROOT/results"
SPACE=lua/transpose_space.lua
PROB=${RESUME_PROBLEM:-1}
"$BIN" run --no-progress --results "$R" --problem "$PROB" $SPACE >"$TMPROOT/run1.log" 2>&1 &
pid=$!
store=""
for i in $(seq 1 600); do
  store=$(ls "$R"/*/*.jsonl 2>/dev/null | head -1 || true)
  if [ -n "$store" ] && [ "$(wc -l < "$store")" -ge 40 ]; then break; fi
  sleep 0.1
done
kill -KILL $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
[ -n "$store" ] && ok || fail "the first run wrote no store"
before=$(wc -l < "$store")
echo "killed after $before records"
[ "$before" -ge 40 ] && ok || fail "the first run was killed before 40 records ($before)"
expect_status 0 -- "$BIN" run --no-progress --results "$R" --problem "$PROB" $SPACE
echo "$OUTPUT" | tail -5
python3 - "$store" <<'PY' && ok || fail "store check failed"
import json, sys
seen = {}
with open(sys.argv[1]) as f:
    for n, line in enumerate(f, 1):
        r = json.loads(line)
        k = (r["config"], r["problem"])
        if k in seen:
            sys.exit(f"duplicate record for {k} at lines {seen[k]} and {n}")
        seen[k] = n
print(f"{len(seen)} records, no duplicates")
PY
total=$(wc -l < "$store")
echo "after resume: $total records"
want=$(printf '%s' "$OUTPUT" | sed -n 's/.*: \([0-9]*\) valid configurations of.*/\1/p' | head -1)
[ -n "$want" ] && [ "$total" -eq "$want" ] && ok || fail "store holds $total records, the space has ${want:-?} configurations"
expect_output "answered from the store"
finish
