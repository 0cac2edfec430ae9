#!/usr/bin/env bash
# Without a GPU: a sample of the transpose space that uses every value of every parameter
# (--sample, so every branch a parameter selects in the template is compiled) compiles for
# sm_90 and sm_80 with no failure, the table reports resources, and a second run of the same
# sample is served wholly from the compile cache (0 compiled). The whole space, and how fast a
# cached re-run is, are measured by bench/compile_space.sh, not here: no test asserts a time.
. "$(dirname "$0")/lib_cli.sh"
set -e
N=8
for arch in sm_90 sm_80; do
  expect_status 0 -- "$BIN" run --compile-only --sample $N --arch $arch --no-progress -v lua/transpose_space.lua
  expect_output "$N configurations for $arch" "$arch run"
  expect_output " 0 failed" "$arch run"
  expect_output "timing needs a GPU" "$arch run"
  expect_output "registers" "$arch summary"
  expect_output "of them covering every value of every parameter" "$arch run"
  if printf '%s' "$OUTPUT" | grep -q compile_error; then fail "$arch: a configuration failed to compile"; else ok; fi
  # every value of every parameter is in the table (the values of lua/transpose_space.lua)
  missing=$(printf '%s\n' "$OUTPUT" | awk '
    BEGIN { want["TILE"]="0 16 32 64"; want["PAD"]="0 1 2"; want["SWIZZLE"]="0 1";
            want["BLOCK_ROWS"]="1 2 4 8 16 32"; want["VEC"]="1 2 4"; want["UNROLL"]="0 1";
            want["LDG"]="0 1"; want["ORDER"]="0 1 2 3"; want["TPB"]="1 4";
            want["ALIGN"]="0 8 32" }
    $1 == "TILE" && $2 == "PAD" { for (i = 1; i <= NF; i++) col[i] = $i; intable = 1; next }
    intable && NF == 0 { intable = 0 }
    intable { for (i = 1; i <= 10; i++) seen[col[i] "=" $i] = 1 }
    END { for (p in want) { n = split(want[p], v, " "); for (k = 1; k <= n; k++) if (!((p "=" v[k]) in seen)) printf "%s=%s ", p, v[k] } }')
  if [ -z "$missing" ]; then ok; else fail "$arch: the sample misses $missing"; fi
done
# the same sample again (same --seed): everything from the cache, nothing compiled
expect_status 0 -- "$BIN" run --compile-only --sample $N --arch sm_90 --no-progress lua/transpose_space.lua
expect_output "$N configurations for sm_90" "second run"
expect_output ": 0 compiled, $N from the cache, 0 failed" "second run (everything from the cache)"
# --sample needs a number, and is refused where a GPU would measure
expect_status 2 -- "$BIN" run --compile-only --sample 0 lua/transpose_space.lua
expect_output "--sample needs a positive number"
finish
