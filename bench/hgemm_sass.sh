#!/usr/bin/env bash
# hgemm_sass.sh: what the SASS of built hgemm kernels holds, per function and architecture:
# HGMMA (wgmma), HMMA (mma.sync), LDSM (ldmatrix), LDGSTS (cp.async), UTMALDG (TMA tensor loads:
# a TMA=1 configuration must show them), local-memory accesses
# (LDL/STL: must be 0), barriers (BAR) and mbarrier operations (SYNCS), and the registers and
# stack frame cuobjdump reports. A wgmma configuration whose SASS shows no HGMMA, or any LDL/STL,
# is on a slower path than it was written for.
#   bench/hgemm_sass.sh FILE...        (executables, objects or cubins)
# Environment: CUOBJDUMP (default: cuobjdump on PATH, else the toolkit's).
set -euo pipefail
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
[ -x "$CUOBJDUMP" ] || { echo "hgemm_sass.sh: no cuobjdump (set CUOBJDUMP)" >&2; exit 2; }
printf '%-34s %-6s %6s %6s %6s %7s %7s %6s %5s %6s %5s %6s\n' function arch HGMMA HMMA LDSM LDGSTS UTMALDG LDL/STL BAR SYNCS regs stack
for f in "$@"; do
  # -res-usage prints an ELF's REG/STACK lines, then "code for sm_XY", then its functions in
  # the same order
  "$CUOBJDUMP" -sass -res-usage "$f" | awk '
    /REG:[0-9]+/ { match($0, /REG:[0-9]+/); r[nq] = substr($0, RSTART + 4, RLENGTH - 4)
                   match($0, /STACK:[0-9]+/); st[nq++] = substr($0, RSTART + 6, RLENGTH - 6); next }
    /code for sm_/ { arch = $3; next }
    /Function : / { if (fn != "") emit(); fn = $3; fa = arch; h = m = l = g = t = loc = b = s = 0
                    fr = qi < nq ? r[qi] : "?"; fs = qi < nq ? st[qi] : "?"; qi++; next }
    /HGMMA/ { h++ } /[ \t]HMMA/ { m++ } /LDSM/ { l++ } /LDGSTS/ { g++ } /UTMALDG/ { t++ } /[ \t](LDL|STL)[ .]/ { loc++ }
    /[ \t]BAR\./ { b++ } /SYNCS\./ { s++ }
    function emit() { printf "%-34s %-6s %6d %6d %6d %7d %7d %6d %5d %6d %5s %6s\n", fn, fa, h, m, l, g, t, loc, b, s, fr, fs }
    END { if (fn != "") emit() }' | grep -v '^_Z' || true
done
