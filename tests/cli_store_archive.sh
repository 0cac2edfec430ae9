#!/usr/bin/env bash
# cli_store_archive: tools/store-archive moves the records of old template versions out of a
# store into <store>.archive.jsonl.gz and loses nothing: the store and the archive together hold
# every line of the store before, once; the archive reads as a store (cutune best, the replay);
# a second run moves nothing; --dry-run writes nothing; a store in use (its lock held) is
# refused; the header of the store's space is the same from the smaller store.
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
D="$TMPROOT/results/NVIDIA_H200"
mkdir -p "$D"
S="$D/shipfix.jsonl"
cp tests/ship/results/NVIDIA_H200/shipfix.jsonl "$S"
# an older version's records before the current ones: the ffff... lines of the A100 fixture
grep '"template_hash":"ffff' tests/ship/results/NVIDIA_A100-SXM4-40GB/shipfix.jsonl > "$TMPROOT/old"
cat "$TMPROOT/old" "$S" > "$TMPROOT/all" && cp "$TMPROOT/all" "$S"
nold=$(grep -c . "$TMPROOT/old"); nall=$(grep -c . "$S")
[ "$nold" -ge 1 ] && ok || fail "the fixture has no old record"
"$BIN" header tests/ship/shipfix.lua "$TMPROOT/results" -o "$TMPROOT/before.h" 2>/dev/null
expect_status 0 -- tools/store-archive "$S" --dry-run
expect_output "move to $D/shipfix.archive.jsonl.gz"
[ ! -e "$D/shipfix.archive.jsonl.gz" ] && [ "$(grep -c . "$S")" -eq "$nall" ] && ok || fail "--dry-run wrote"
expect_status 0 -- tools/store-archive "$S"
expect_output "$((nall - nold)) records stay"
[ "$(grep -c . "$S")" -eq $((nall - nold)) ] && ok || fail "the store keeps $(grep -c . "$S") lines"
# nothing lost: store + archive = the lines before, each once
cat "$S" <(gzip -dc "$D/shipfix.archive.jsonl.gz") | sort > "$TMPROOT/after"
sort "$TMPROOT/all" > "$TMPROOT/before"
cmp -s "$TMPROOT/before" "$TMPROOT/after" && ok || fail "store + archive differ from the store before"
# the archive reads as a store
expect_status 0 -- "$BIN" best "$D/shipfix.archive.jsonl.gz"
expect_output "shipfix / K=10,N=1000: $nold records"
# the header (current template only) is the same, but for its regenerate line
"$BIN" header tests/ship/shipfix.lua "$TMPROOT/results" -o "$TMPROOT/after.h" 2>/dev/null
cmp -s <(sed 3d "$TMPROOT/before.h") <(sed 3d "$TMPROOT/after.h") && ok || fail "the header changed"
# again: nothing to move; the archive is unchanged
sum=$(cksum < "$D/shipfix.archive.jsonl.gz")
expect_status 0 -- tools/store-archive "$S"
expect_output ", 0 move to"
[ "$(cksum < "$D/shipfix.archive.jsonl.gz")" = "$sum" ] && ok || fail "a second run changed the archive"
# a store in use is refused
if command -v flock >/dev/null; then
  cp "$TMPROOT/all" "$S"
  flock "$S.lock" sleep 5 &
  holder=$!
  sleep 0.5
  expect_status 1 -- tools/store-archive "$S"
  expect_output "is in use"
  kill $holder 2>/dev/null || true
  wait $holder 2>/dev/null || true
fi
finish
