#!/usr/bin/env python3
"""best_config.py: the fastest checked configuration of a space on one problem, from cutune stores.

  bench/best_config.py RESULTS SPACE PROBLEM     e.g. results matmul "K=4096,M=4096,N=4096"

Reads every RESULTS/**/SPACE.jsonl (the newest store when several devices exist), takes the last
record per configuration, and prints one line: the -D flags, a tab, the config string, a tab,
t_median in ms, a tab, GFLOP/s (or "-"). Exit 1 when no record with status ok exists."""
import json
import os
import sys

results, space, problem = sys.argv[1], sys.argv[2], sys.argv[3]
stores = []
for d, _, files in os.walk(results):
    if space + ".jsonl" in files:
        p = os.path.join(d, space + ".jsonl")
        stores.append((os.path.getmtime(p), p))
if not stores:
    sys.exit(f"best_config.py: no {space}.jsonl under {results}")
store = max(stores)[1]
last = {}
with open(store, errors="replace") as f:
    for ln in f:
        try:
            r = json.loads(ln)
        except ValueError:
            continue  # a torn line
        if r.get("problem") == problem:
            last[r.get("config")] = r
best = None
for r in last.values():
    t = r.get("t_median")
    if r.get("status") == "ok" and isinstance(t, (int, float)) and t > 0 and (best is None or t < best["t_median"]):
        best = r
if best is None:
    sys.exit(f"best_config.py: no record with status ok for {problem} in {store}")
flags = " ".join(f"-D{k}={int(str(v))}" for k, v in best["params"].items())
g = best.get("gflops")
print(f"{flags}\t{best['config']}\t{best['t_median']}\t{g if isinstance(g, (int, float)) else '-'}")
