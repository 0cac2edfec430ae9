#!/usr/bin/env bash
# Without a GPU: a sample of the BF16 hgemm space compiles with NVRTC for sm_90a (both MMA paths:
# wgmma and mma.sync) and for sm_80 (mma.sync; the wgmma configurations are not for it, by the
# space's arch, and are not compiled), with no failure, no spill and no local memory; the FP16
# space's sample for sm_90a too. --sample 3 compiles the cover (a few configurations that use
# every value of every parameter: 7 for this space) per architecture, ~2 s of NVRTC each on a
# loaded 2-core machine (on sm_80 a configuration may also not fit: the space allows sm_90's 227 KB
# of shared memory, sm_80 has 163 KB). And every configuration of bench/hgemm_configs.txt (what the emulator
# and the GPU session's check phase run) is one of the space's (a pinned space, for sm_75: none
# compiled, all counted).
. "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
# columns of the compile-only table: WG is the first; spills "st/ld" and local bytes near the end
resources_clean() {
  printf '%s\n' "$OUTPUT" | awk '$1 ~ /^[01]$/ && $NF == "ok" { n++; if ($(NF-5) != "0/0" || $(NF-4) != 0) bad++ }
    END { exit !(n > 0 && bad == 0) }'
}
for arch in sm_90a sm_80; do
  run_any "$BIN" run --compile-only --arch $arch --no-progress -v --sample 3 --seed 5 lua/hgemm_space.lua
  expect_output "of them covering every value of every parameter" "$arch hgemm"
  if [ $arch = sm_90a ]; then
    [ "$STATUS" = 0 ] && ok || fail "sm_90a: exit $STATUS"
    expect_output " 0 failed" "$arch hgemm"
  else # the space's shared memory limit is sm_90's 227 KB: sm_80 has 163 KB, the rest must compile
    [ "$STATUS" = 0 ] || [ "$STATUS" = 3 ] && ok || fail "sm_80: exit $STATUS"
    printf '%s\n' "$OUTPUT" | awk '$NF != "ok" && $1 ~ /^[01]$/ && !/needs sm_90a|does not fit on a multiprocessor/ { bad++ }
      END { exit bad > 0 }' && ok || fail "sm_80: a failure other than the arch or sm_80's shared memory"
  fi
  if printf '%s' "$OUTPUT" | grep -q compile_error; then fail "$arch: an hgemm configuration failed to compile"; else ok; fi
  resources_clean && ok || fail "$arch: a configuration spills or uses local memory"
  wg1=$(printf '%s\n' "$OUTPUT" | awk '$1 == 1 && $NF == "ok"' | wc -l)
  wg0=$(printf '%s\n' "$OUTPUT" | awk '$1 == 0 && $NF == "ok"' | wc -l)
  if [ $arch = sm_90a ]; then
    [ "$wg1" -gt 0 ] && [ "$wg0" -gt 0 ] && ok || fail "sm_90a: not both paths compiled (wgmma $wg1, mma.sync $wg0)"
  else
    [ "$wg1" -eq 0 ] && [ "$wg0" -gt 0 ] && ok || fail "sm_80: wgmma compiled ($wg1) or no mma.sync ($wg0)"
    expect_output "not for sm_80 (the space's arch: not compiled)" "sm_80 arch"
    expect_output "needs sm_90a (architecture-specific: compute capability 9.0 only), not sm_80" "sm_80 reason"
  fi
done
expect_status 0 -- "$BIN" run --compile-only --arch sm_90a --no-progress --sample 1 --seed 2 lua/hgemm_f16_space.lua
expect_output " 0 failed" "f16 hgemm"
# the configurations list: every line a valid configuration (GROUPM=8, SPLITK=1 for the keys)
pin=$(grep -v '^#' bench/hgemm_configs.txt | sed 's/|.*//' | python3 -c '
import sys
names = ["WG", "BM", "BN", "BK", "WM", "WN", "STAGES", "SWZ", "WS", "WAITG", "REGS", "TMA"]
keys = []
for line in sys.stdin:
    d = dict(x[2:].split("=") for x in line.split())
    d.setdefault("WS", "0"); d.setdefault("WAITG", "0"); d.setdefault("REGS", "0"); d.setdefault("TMA", "0")
    keys.append(",".join("%s=%s" % (n, d[n]) for n in names) + ",GROUPM=8,SPLITK=1")
print(";".join(keys))')
n=$(grep -c '^-D' bench/hgemm_configs.txt)
CUTUNE_PIN="$pin" expect_status 0 -- "$BIN" run --compile-only --arch sm_75 --no-progress lua/hgemm_pinned.lua
expect_output "lua/hgemm_pinned.lua: $n valid configurations" "bench/hgemm_configs.txt in the space"
finish
