#!/usr/bin/env python3
"""kt_agreement.py: compare Kernel Tuner's times with cutune's on the same configurations.

  bench/kt_agreement.py space KT_TIMES.json lua/matmul_space.lua OUT.lua
      writes a copy of the space whose first constraint admits only the configurations in
      KT_TIMES.json (written by kernel_tuner_matmul.py --dump), for cutune to measure them all;
  bench/kt_agreement.py compare KT_TIMES.json STORE.jsonl [PROBLEM]
      prints the ratio Kernel Tuner time / cutune time over the configurations both measured."""
import json
import re
import sys

if sys.argv[1] == "space":
    kt, src, dst = json.load(open(sys.argv[2])), open(sys.argv[3]).read(), sys.argv[4]
    names = re.findall(r'ct\.param\("(\w+)"', src)
    keys = ", ".join(f'["{k}"] = true' for k in kt)
    fmt = ",".join(f"{n}=%d" for n in names)
    rule = ("    ct.rule({" + ", ".join(f'"{n}"' for n in names) + "}, function(p)\n"
            f'      return KT[("{fmt}"):format(' + ", ".join(f"p.{n}" for n in names) + ")] == true\n"
            '    end, "measured by Kernel Tuner"),\n')
    i = src.index("  constraints = {\n") + len("  constraints = {\n")
    src = src[:i] + rule + src[i:]
    src = src.replace('local ct = require "cutune"', 'local ct = require "cutune"\nlocal KT = {' + keys + "}", 1)
    open(dst, "w").write(src)
elif sys.argv[1] == "compare":
    kt = json.load(open(sys.argv[2]))
    prob = sys.argv[4] if len(sys.argv) > 4 else "K=4096,M=4096,N=4096"
    ct = {}
    for ln in open(sys.argv[3]):
        r = json.loads(ln)
        if r["status"] == "ok" and r["problem"] == prob:
            ct[r["config"]] = r["t_median"]
    q = sorted(kt[k] / ct[k] for k in kt if k in ct)
    if not q:
        sys.exit("  agreement: no configuration in common")
    at = lambda x: q[min(len(q) - 1, int(x * len(q)))]
    print(f"  agreement on {len(q)} of {len(kt)} Kernel Tuner configurations: KT time (mean of 7) / cutune time "
          f"(median) median {at(0.5):.3f}, 10-90 % {at(0.1):.3f}-{at(0.9):.3f}, min {q[0]:.3f}, max {q[-1]:.3f}")
else:
    sys.exit(__doc__)
