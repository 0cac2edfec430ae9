#!/bin/bash
# cli_header_caches: a header built from the shared Kernel Tuner caches of the convolution
# (A100, A4000, A6000) over lua/convolution_space.lua: every cache maps onto the space, each GPU
# gets a device entry, sm_80 and sm_86 get architecture entries, the portability table has a
# row per GPU, the header is the same bytes twice and compiles as C99. Skipped where
# ../shared is absent (CI).
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
C=${CUTUNE_SHARED:-../shared}/data/tuning-caches/convolution
[ -f "$C/A100.json.gz" ] && [ -f "$C/A4000.json.gz" ] && [ -f "$C/A6000.json.gz" ] || { echo "skipped: no shared tuning caches"; exit 77; }
args=(lua/convolution_space.lua --kt-problem W,H "$C/A100.json.gz" "$C/A4000.json.gz" "$C/A6000.json.gz")
expect_status 0 -- "$BIN" header "${args[@]}"
printf '%s\n' "$OUTPUT" | grep -v "^cutune header:" > "$TMPROOT/a.h"
for gpu in "NVIDIA A100-PCIE-40GB" "NVIDIA RTX A4000" "NVIDIA RTX A6000"; do
  expect_output "/* device $gpu, H=4096,W=4096:"
  if grep -qE "^ \*   $gpu +H=4096,W=4096 +[0-9.]+ ms +[0-9.]+ % +[0-9.]+ %" "$TMPROOT/a.h"; then ok; else fail "no portability row for $gpu"; fi
done
expect_output "/* arch sm_80, H=4096,W=4096:"
expect_output "/* arch sm_86, H=4096,W=4096:"
expect_output "portable over NVIDIA A100-PCIE-40GB, NVIDIA RTX A4000, NVIDIA RTX A6000: worst"
"$BIN" header "${args[@]}" 2>/dev/null > "$TMPROOT/b.h"
if cmp -s "$TMPROOT/a.h" "$TMPROOT/b.h"; then ok; else fail "two runs gave different bytes"; fi
printf '#include "a.h"\nint main(void) { return cutune_convolution_select("NVIDIA RTX A4000", 8, 6, 4096, 4096)->level; }\n' > "$TMPROOT/m.c"
expect_status 0 -- gcc -std=c99 -Wall -Wextra -Werror -o "$TMPROOT/m" "$TMPROOT/m.c"
expect_status 0 -- "$TMPROOT/m"
# a cache whose parameters are not the space's is refused by name
expect_status 1 -- "$BIN" header lua/transpose_space.lua "$C/A100.json.gz"
expect_output "disagree with those of the space"
finish
