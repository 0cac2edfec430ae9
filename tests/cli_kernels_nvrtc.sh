#!/bin/bash
# cli_kernels_nvrtc: kernels/build_nvcc.sh with CUTUNE_UNITS=nvrtc ships the code that was
# measured. Each shipped configuration of the committed SGEMM and transpose headers is compiled by
# NVRTC as `cutune run` compiled it (kernels/nvrtc_cubin.c), and ptxas' register count of every
# one equals the count its records in results/ give (the driver's figure for the cubin the tuner
# timed) — nvcc's own compile of the same units differs for most SGEMM configurations, which is
# why the mode exists (docs/HEADER.md, "The kernels a build ships"). The units embed one
# fatbinary each and load it with cudaLibraryLoadData; the example programs link. No GPU needed.
source "$(dirname "$0")/lib_cli.sh"
set -e
cd "$SRC"
NVCC=${CUTUNE_NVCC:-$(command -v nvcc || true)}
[ -n "$NVCC" ] && [ -x "$NVCC" ] || { echo "skipped: no nvcc"; exit 77; }
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }
O="$TMPROOT/nv"
expect_status 0 -- env NVCC="$NVCC" CUTUNE_UNITS=nvrtc CUTUNE_SPACES="matmul transpose" bash kernels/build_nvcc.sh 90 "$O"
for prog in sgemm_example transpose_example; do
  [ -x "$O/$prog" ] && ok || fail "build_nvcc.sh built no $prog"
done
for sp in matmul transpose; do
  n=$(sed -n 's/^ \* cutune-config [0-9]* //p' results/$sp.h | sort -u | wc -l)
  m=$(grep -l "cudaLibraryLoadData" "$O/gen/$sp"/config_*.cu | wc -l)
  [ "$n" -eq "$m" ] && [ "$n" -gt 0 ] && ok || fail "$sp: $m units load a fatbinary, $n distinct shipped configurations"
  [ "$(ls "$O/nvrtc/$sp"/unit_*.fatbin | wc -l)" -eq "$n" ] && ok || fail "$sp: fatbinaries: $(ls "$O/nvrtc/$sp")"
  grep -q "cudaLibraryGetKernel(&k, lib, \"$sp\")" "$O/gen/$sp"/config_*.cu && ok || fail "$sp: the units do not ask for kernel $sp"
done
# every shipped configuration: NVRTC's registers here == its records' (sm_90, today's template)
python3 - "$O" > "$TMPROOT/regs.txt" <<'PY'
import glob, gzip, json, os, re, sys
out = sys.argv[1]
bad = 0
for sp in ("matmul", "transpose"):
    lines = [l[len(" * cutune-config "):].split() for l in open("results/%s.h" % sp) if l.startswith(" * cutune-config ")]
    regs = {}
    for f in glob.glob("results/*/%s.jsonl*" % sp):
        if ".archive." in f:
            continue
        op = gzip.open if f.endswith(".gz") else open
        for l in op(f, "rt"):
            try:
                r = json.loads(l)
            except ValueError:
                continue
            if r.get("status") != "ok" or (r.get("provenance") or {}).get("arch") != "sm_90":
                continue
            key = tuple(sorted("%s=%s" % kv for kv in r["params"].items()))
            regs.setdefault(key, set()).add((r.get("resources") or {}).get("regs"))
    seen = set()
    for l in lines:
        i, defs = l[0], tuple(sorted(l[1:]))
        if defs in seen:
            continue
        seen.add(defs)
        want = set()
        for k, v in regs.items():  # records of this configuration, any runtime parameter value
            if set(defs) <= set(k):
                want |= v
        log = open(os.path.join(out, "nvrtc", sp, "ptxas_%s.txt" % i)).read()
        got = [int(x) for x in re.findall(r"Used (\d+) registers", log)]
        ok = got and want and all(g in want for g in got[:1])
        bad += not ok
        print("%s %s: nvrtc %s, records %s%s" % (sp, i, got[:1], sorted(want), "" if ok else "  MISMATCH"))
print("mismatches: %d" % bad)
PY
grep -q "^mismatches: 0$" "$TMPROOT/regs.txt" && ok || { fail "NVRTC's registers differ from the records'"; cat "$TMPROOT/regs.txt" >&2; }
[ "$(grep -c ': nvrtc' "$TMPROOT/regs.txt")" -ge 10 ] && ok || fail "too few configurations compared: $(cat "$TMPROOT/regs.txt")"
finish
