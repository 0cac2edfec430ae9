#!/usr/bin/env python3
"""Writes the fixture stores of tests/cli_ship.sh (run from tests/ship/; the outputs are committed).

Configuration index i = 4*a + 2*b + c for A = (1,2,4)[a], B = (1,2)[b], C = (0,1)[c].
Problem K=10,N=1000 (small), base time 1.0 + 0.1 i ms; with these overrides:
  H200  i11 0.5 (its best)          H100  i10 0.5 (its best), i11 1.5
  A100  i9 0.5 (its best), i11 2.0, i10 1.2
  A4000 (Kernel Tuner cache) i8 0.5 (its best)
  everywhere: i5 0.7 (share 0.714 on every GPU: the best worst case -> the default),
  i4 0.51 on the three cutune GPUs and 1.0 on the A4000 (best mean -> the default of --rule mean,
  and the portable choice of sm_90 over H200 and H100).
Problem K=10,N=100000 (large, H200 and A100 only): base 10 + i; H200 i3 5.0, A100 i2 5.0, both i1 6.0.
Energy (H200, small): i11 5, i4 4, i5 3, i0 2, i1 6 -> the time/energy front is i11, i4, i5, i0.
"""
import hashlib, json, os

tpl = open("shipfix.cu", "rb").read()
THASH = hashlib.sha256(tpl).hexdigest()[:32]
A, B, C = (1, 2, 4), (1, 2), (0, 1)

def cfg(i):
    return {"A": A[i // 4], "B": B[(i // 2) % 2], "C": C[i % 2]}

def key(p):
    return ",".join(f"{k}={v}" for k, v in p.items())

def record(space, dev, cc, i, problem, t, energy=None, status="ok", thash=THASH, params=None):
    p = params or {k: str(v) for k, v in cfg(i).items()}
    return {"space": space, "config": key(p), "params": p, "problem": problem, "status": status,
            "message": "" if status == "ok" else "error: fixture", "time_ms": {"median": t, "min": t, "mean": t,
            "std": 0.0, "samples": 10} if status == "ok" else None, "t_median": t if status == "ok" else None,
            "gbps": None, "copy_share": (0.5 / t) if status == "ok" else None, "gflops": None, "energy_mj": energy,
            "resources": {"regs": 10 + i, "smem_static": 0, "smem_dynamic": 0, "local_bytes": 0, "spill_stores": 0,
            "spill_loads": 0, "block_threads": 32, "occupancy": 1, "limiter": "none"}, "compile_ms": 1.0,
            "provenance": {"template_hash": thash, "options_hash": "0" * 32, "nvrtc": "13.0", "driver": "13.0",
            "device": dev, "cc": cc, "uuid": "GPU-fixture", "arch": "sm_" + cc.replace(".", ""),
            "time": "2026-12-01T10:00:00Z"}}

SMALL, LARGE = "K=10,N=1000", "K=10,N=100000"

def small(gpu):
    t = {i: 1.0 + 0.1 * i for i in range(12)}
    t[5] = 0.7
    if gpu != "A4000": t[4] = 0.51
    else: t[4] = 1.0
    t.update({"H200": {11: 0.5}, "H100": {10: 0.5, 11: 1.5}, "A100": {9: 0.5, 11: 2.0, 10: 1.2},
              "A4000": {8: 0.5}}[gpu])
    return t

def large(gpu):
    t = {i: 10.0 + i for i in range(12)}
    t[1] = 6.0
    t.update({"H200": {3: 5.0}, "A100": {2: 5.0}}[gpu])
    return t

def write(path, recs):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")

energy = {11: 5.0, 4: 4.0, 5: 3.0, 0: 2.0, 1: 6.0}
write("results/NVIDIA_H200/shipfix.jsonl",
      [record("shipfix", "NVIDIA H200", "9.0", i, SMALL, t, energy.get(i)) for i, t in small("H200").items()] +
      [record("shipfix", "NVIDIA H200", "9.0", i, LARGE, t) for i, t in large("H200").items()])
write("results/NVIDIA_H100_80GB_HBM3/shipfix.jsonl",
      [record("shipfix", "NVIDIA H100 80GB HBM3", "9.0", i, SMALL, t) for i, t in small("H100").items()] +
      [record("shipfix", "NVIDIA H100 80GB HBM3", "9.0", 7, SMALL, 0, status="compile_error")])
write("results/NVIDIA_A100-SXM4-40GB/shipfix.jsonl",
      [record("shipfix", "NVIDIA A100-SXM4-40GB", "8.0", 0, SMALL, 0.01, thash="f" * 32)] +  # another template
      [record("shipfix", "NVIDIA A100-SXM4-40GB", "8.0", i, SMALL, t) for i, t in small("A100").items()] +
      [record("shipfix", "NVIDIA A100-SXM4-40GB", "8.0", i, LARGE, t) for i, t in large("A100").items()])

# A Kernel Tuner cache (its format: header, cache keyed by the comma-joined values).
kt = {"device_name": "NVIDIA RTX A4000", "kernel_name": "scale", "problem_size": [10, 1000],
      "tune_params_keys": ["A", "B", "C"], "tune_params": {"A": list(A), "B": list(B), "C": list(C)},
      "objective": "time", "cache": {}}
for i, t in small("A4000").items():
    p = cfg(i)
    e = dict(p)
    e.update({"time": t, "times": [t, t], "compile_time": 100.0, "verification_time": 0, "benchmark_time": 2 * t,
              "timestamp": "2024-03-01 12:00:00+00:00"})
    kt["cache"][",".join(str(v) for v in p.values())] = e
with open("kt_a4000.json", "w") as f:
    json.dump(kt, f, indent=1)

# Bad inputs.
write("bad/other_space.jsonl", [record("other", "NVIDIA H200", "9.0", 0, SMALL, 1.0)])
write("bad/params.jsonl", [record("shipfix", "NVIDIA H200", "9.0", 0, SMALL, 1.0,
                                  params={"A": "1", "B": "1", "D": "0"})])
write("bad/failed.jsonl", [record("shipfix", "NVIDIA L4", "8.9", i, SMALL, 0, status="compile_error") for i in range(3)])
